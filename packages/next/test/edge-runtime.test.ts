/**
 * `@latchkey/next` on Next.js's Edge runtime: an application's `auth.ts` and middleware
 * (fixtures/edge-app.ts) bundled as Next.js compiles Edge code (export conditions `edge-light`,
 * `worker`, `browser`; `platform: "neutral"`, so a `node:` import would not resolve) and run in
 * `edge-runtime`, the sandbox Next.js's Edge runtime is built on, with the `process.env` Next.js
 * gives it. The package loads there (it threw `EdgeRuntimeUnsupported` before the core ran on Web
 * Crypto), its route handlers sign in, and `auth` as middleware reads the session: the
 * `authorized` callback lets a signed-in request through and redirects the others to the sign-in
 * page, `req.auth` reaches a wrapped handler, and a tampered cookie reads as signed out.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { EdgeRuntime } from "edge-runtime";
import { build, type Plugin } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";
import { CookieJar } from "../../core/test/helpers.js";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "fixtures");
const ORIGIN = "http://localhost:3000";
const SESSION = "authjs.session-token";

/** The optional peers, as an application that did not install them has them (see the core's runtime test). */
const absentOptionalPeers: Plugin = {
  name: "absent-optional-peers",
  setup(b) {
    b.onResolve({ filter: /^(nodemailer|@simplewebauthn\/server)$/ }, ({ path }) => ({ path, namespace: "absent" }));
    b.onLoad({ filter: /.*/, namespace: "absent" }, ({ path }) => ({
      contents: `throw new Error(${JSON.stringify(`${path} is not installed`)});`,
    }));
  },
};

let runtime: EdgeRuntime;
let inputs: string[] = [];

beforeAll(async () => {
  const result = await build({
    stdin: {
      contents: `import { route } from "./edge-app.ts";
        addEventListener("fetch", (event) => event.respondWith(route(event.request)));`,
      resolveDir: fixtures,
      loader: "ts",
    },
    bundle: true,
    format: "iife",
    platform: "neutral",
    conditions: ["edge-light", "worker", "browser"],
    mainFields: ["browser", "module", "main"],
    target: "es2022",
    write: false,
    metafile: true,
    logLevel: "silent",
    // Next.js's Edge compilation mocks __dirname (its compiled ua-parser reads it).
    define: { __dirname: '"/"' },
    plugins: [absentOptionalPeers],
  });
  inputs = Object.keys(result.metafile.inputs);
  runtime = new EdgeRuntime({
    initialCode: result.outputFiles[0]?.text ?? "",
    // What Next.js's Edge sandbox adds: `process.env` (its variables), nothing of Node.js else.
    extend: (context) =>
      Object.assign(context, { process: { env: { AUTH_SECRET: "edge-test-secret-0123456789-abcdefghijklm" } } }),
  });
});

const fetchEdge = (path: string, init?: RequestInit) =>
  runtime.dispatchFetch(`${ORIGIN}${path}`, { redirect: "manual", ...init }) as Promise<Response>;

async function signIn(jar: CookieJar): Promise<void> {
  const csrf = await fetchEdge("/api/auth/csrf");
  jar.apply(csrf);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const response = await fetchEdge("/api/auth/callback/credentials", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header() },
    body: new URLSearchParams({ csrfToken, username: "ada", password: "lovelace" }).toString(),
  });
  jar.apply(response);
  expect(response.status).toBe(302);
  expect(jar.cookies.has(SESSION)).toBe(true);
}

describe("@latchkey/next on the Edge runtime (edge-runtime, bundled as Next.js does)", () => {
  it("loads with the core's Web platform module, where there is no Buffer", async () => {
    expect(inputs.some((file) => file.endsWith("core/dist/lib/platform/web.js"))).toBe(true);
    expect(inputs.some((file) => file.endsWith("core/dist/lib/platform/node.js"))).toBe(false);
    expect(await (await fetchEdge("/runtime/globals")).json()).toEqual({ Buffer: "undefined", EdgeRuntime: "string" });
  });

  it("says once at startup that its in-memory rate limits hold for this runtime's global only, naming the shared store", async () => {
    await fetchEdge("/api/auth/csrf");
    await fetchEdge("/api/auth/session");
    const warnings = (await (await fetchEdge("/runtime/warnings")).json()) as string[];
    expect(warnings.filter((code) => code === "memory-state-isolated")).toHaveLength(1);
  });

  it("middleware (`export { auth as middleware }` with `authorized`): a signed-out request is sent to sign in, a signed-in one goes through", async () => {
    const anonymous = await fetchEdge("/protected/page");
    expect(anonymous.status).toBe(307);
    const location = new URL(anonymous.headers.get("location") ?? "", ORIGIN);
    expect(location.pathname).toBe("/api/auth/signin");
    expect(location.searchParams.get("callbackUrl")).toBe("/protected/page");
    // A public page goes through without a session.
    expect((await fetchEdge("/about")).headers.get("x-middleware-next")).toBe("1");

    const jar = new CookieJar();
    await signIn(jar);
    const allowed = await fetchEdge("/protected/page", { headers: { cookie: jar.header() } });
    expect(allowed.headers.get("x-middleware-next")).toBe("1");
    expect(allowed.headers.get("location")).toBeNull();
  });

  it("a wrapped handler (`auth((req) => ...)`) gets the session on req.auth, and none for a tampered cookie", async () => {
    const jar = new CookieJar();
    await signIn(jar);
    const read = await fetchEdge("/wrapped", { headers: { cookie: jar.header() } });
    expect(read.headers.get("x-wrapped")).toBe("1");
    expect(await read.json()).toEqual({ user: "Ada Lovelace" });

    const token = jar.cookies.get(SESSION) ?? "";
    const parts = token.split(".");
    parts[4] = `${(parts[4] ?? "").startsWith("A") ? "B" : "A"}${(parts[4] ?? "").slice(1)}`;
    const tampered = await fetchEdge("/wrapped", { headers: { cookie: `${SESSION}=${parts.join(".")}` } });
    expect(await tampered.json()).toEqual({ user: null });
    const session = await fetchEdge("/api/auth/session", { headers: { cookie: jar.header() } });
    expect(((await session.json()) as { user?: { name?: string } }).user?.name).toBe("Ada Lovelace");
  });
});
