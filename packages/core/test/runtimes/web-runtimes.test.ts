/**
 * The core where `node:crypto` is absent, on the runtimes themselves: Vercel's `edge-runtime` (the
 * sandbox Next.js runs Edge middleware and routes in: no `Buffer`, no `process`) and Cloudflare's
 * `workerd` through `miniflare`, without `nodejs_compat`. The application (fixtures/app.ts) is
 * bundled by esbuild with the export conditions each platform's bundler uses (Next.js's Edge
 * compilation: `edge-light`, `worker`, `browser`; wrangler: `workerd`, `worker`, `browser`) and
 * `platform: "neutral"`, where a `node:` import cannot be resolved: the bundle building at all is
 * the proof that nothing on that path imports one. Then, as a new user would: a credentials
 * sign-in, the session read, a wrong password, a tampered cookie, a sign-out; tokens crossing to
 * and from Auth.js (`@auth/core/jwt`, run by Node.js here) both ways; password hashes made by
 * Node.js verified there, and theirs by Node.js.
 */
import { hkdfSync } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { decode as authjsDecode, encode as authjsEncode } from "@auth/core/jwt";
import { hashPassword, needsRehash, verifyPassword } from "@latchkey/core/password";
import { EdgeRuntime } from "edge-runtime";
import { build, type Plugin } from "esbuild";
import { EncryptJWT } from "jose";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CookieJar } from "../helpers.js";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "fixtures");
const SECRET = "runtime-test-secret-0123456789-abcdefghij";
const ORIGIN = "http://localhost:3000";
const SESSION = "authjs.session-token";

/** The application bundled for a platform, and the files of the core that went into it. */
async function bundle(conditions: string[], format: "iife" | "esm", wrapper: string) {
  const result = await build({
    stdin: { contents: wrapper, resolveDir: fixtures, loader: "ts" },
    bundle: true,
    format,
    platform: "neutral",
    conditions,
    mainFields: ["browser", "module", "main"],
    target: "es2022",
    write: false,
    metafile: true,
    logLevel: "silent",
    plugins: [absentOptionalPeers],
  });
  const inputs = Object.keys(result.metafile.inputs);
  return { code: result.outputFiles[0]?.text ?? "", inputs };
}

/**
 * The optional peers (`nodemailer` for SMTP, `@simplewebauthn/server` for passkeys) as an
 * application that did not install them has them: the core imports each on first use, inside a
 * try, and this application never uses them. (nodemailer needs TCP, which neither runtime gives.)
 */
const absentOptionalPeers: Plugin = {
  name: "absent-optional-peers",
  setup(build) {
    build.onResolve({ filter: /^(nodemailer|@simplewebauthn\/server)$/ }, ({ path }) => ({
      path,
      namespace: "absent",
    }));
    build.onLoad({ filter: /.*/, namespace: "absent" }, ({ path }) => ({
      contents: `throw new Error(${JSON.stringify(`${path} is not installed`)});`,
    }));
  },
};

interface Runtime {
  fetch(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

async function edgeRuntime(): Promise<Runtime & { inputs: string[] }> {
  const { code, inputs } = await bundle(
    ["edge-light", "worker", "browser"],
    "iife",
    `import { handle } from "./app.ts";
     addEventListener("fetch", (event) => event.respondWith(handle(event.request)));`,
  );
  const runtime = new EdgeRuntime({ initialCode: code });
  return {
    inputs,
    fetch: (path, init) => runtime.dispatchFetch(`${ORIGIN}${path}`, init) as Promise<Response>,
    close: async () => {},
  };
}

async function workerd(): Promise<Runtime & { inputs: string[] }> {
  const { code, inputs } = await bundle(
    ["workerd", "worker", "browser"],
    "esm",
    `import { handle } from "./app.ts";
     export default { fetch: (request) => handle(request) };`,
  );
  // No compatibility flags: no nodejs_compat, so neither node: modules nor Buffer exist.
  const mf = new Miniflare({ modules: true, script: code, compatibilityDate: "2024-09-23", compatibilityFlags: [] });
  return {
    inputs,
    fetch: (path, init) => mf.dispatchFetch(`${ORIGIN}${path}`, init as never) as unknown as Promise<Response>,
    close: () => mf.dispose(),
  };
}

const post = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

async function csrf(runtime: Runtime, jar: CookieJar): Promise<string> {
  const response = await runtime.fetch("/auth/csrf", { headers: { cookie: jar.header() } });
  jar.apply(response);
  const { csrfToken } = (await response.json()) as { csrfToken: string };
  return csrfToken;
}

async function signIn(runtime: Runtime, jar: CookieJar, password: string): Promise<Response> {
  const csrfToken = await csrf(runtime, jar);
  const response = await runtime.fetch("/auth/callback/credentials", {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header() },
    body: new URLSearchParams({ csrfToken, username: "ada", password }).toString(),
  });
  jar.apply(response);
  return response;
}

async function session(runtime: Runtime, jar: CookieJar): Promise<{ user?: { name?: string } } | null> {
  const response = await runtime.fetch("/auth/session", { headers: { cookie: jar.header() } });
  jar.apply(response);
  expect(response.status).toBe(200);
  return (await response.json()) as { user?: { name?: string } } | null;
}

describe.each([
  ["edge-runtime (Next.js's Edge sandbox)", edgeRuntime],
  ["workerd without nodejs_compat (miniflare)", workerd],
])("the core on %s", (_name, start) => {
  let runtime: Runtime & { inputs: string[] };
  beforeAll(async () => {
    runtime = await start();
  });
  afterAll(() => runtime?.close());

  it("is bundled with the Web platform module, and the runtime has neither Buffer nor process", async () => {
    expect(runtime.inputs.some((file) => file.endsWith("lib/platform/web.js"))).toBe(true);
    expect(runtime.inputs.some((file) => file.endsWith("lib/platform/node.js"))).toBe(false);
    const globals = await (await runtime.fetch("/runtime/globals")).json();
    expect(globals).toEqual({ Buffer: "undefined", process: "undefined" });
  });

  it("signs in with credentials, reads the session, refuses a wrong password, and signs out", async () => {
    const wrong = new CookieJar();
    const refused = await signIn(runtime, wrong, "not-the-password");
    expect(refused.status).toBe(302);
    expect(refused.headers.get("location")).toContain("error=CredentialsSignin");
    expect(wrong.cookies.has(SESSION)).toBe(false);

    const jar = new CookieJar();
    const signedIn = await signIn(runtime, jar, "lovelace");
    expect(signedIn.status).toBe(302);
    expect(jar.cookies.has(SESSION)).toBe(true);
    expect((await session(runtime, jar))?.user?.name).toBe("Ada Lovelace");

    const csrfToken = await csrf(runtime, jar);
    const out = await runtime.fetch("/auth/signout", {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header() },
      body: new URLSearchParams({ csrfToken }).toString(),
    });
    jar.apply(out);
    expect(out.status).toBe(302);
    expect(jar.cookies.has(SESSION)).toBe(false);
    expect((await session(runtime, jar))?.user).toBeUndefined();
  });

  it("reads a tampered session cookie as signed out, and clears it", async () => {
    const jar = new CookieJar();
    await signIn(runtime, jar, "lovelace");
    const token = jar.cookies.get(SESSION) ?? "";
    const parts = token.split(".");
    const ciphertext = parts[3] ?? "";
    parts[3] = (ciphertext[0] === "A" ? "B" : "A") + ciphertext.slice(1);
    jar.cookies.set(SESSION, parts.join("."));
    expect((await session(runtime, jar))?.user).toBeUndefined();
    expect(jar.cookies.has(SESSION)).toBe(false);
  });

  it("opens Auth.js's session cookies, and Auth.js opens its tokens (wire compatibility both ways)", async () => {
    const fromAuthjs = await authjsEncode({
      token: { sub: "u9", name: "Grace Hopper" },
      secret: SECRET,
      salt: SESSION,
    });
    const jar = new CookieJar();
    jar.cookies.set(SESSION, fromAuthjs);
    expect((await session(runtime, jar))?.user?.name).toBe("Grace Hopper");
    const decoded = await (await runtime.fetch("/runtime/jwt/decode", post({ token: fromAuthjs }))).json();
    expect(decoded.claims).toMatchObject({ sub: "u9", name: "Grace Hopper" });

    const { token } = await (
      await runtime.fetch("/runtime/jwt/encode", post({ token: { sub: "u8", name: "Ada" }, salt: SESSION }))
    ).json();
    expect(await authjsDecode({ token, secret: SECRET, salt: SESSION })).toMatchObject({ sub: "u8", name: "Ada" });
    // A token sealed for one cookie name opens under no other (the salt is the cookie's name).
    const other = await (await runtime.fetch("/runtime/jwt/decode", post({ token, salt: "other-cookie" }))).json();
    expect(other.claims).toBeNull();
  });

  it("opens a token sealed under the older secret of a rotation ([NEW, OLD]), none under [NEW] alone, and a tampered one under neither", async () => {
    const OLD = "an-older-runtime-secret-0123456789-abcdefg";
    const NEW = "a-newer-runtime-secret-0123456789-abcdefgh";
    const token = await authjsEncode({ token: { sub: "u7", name: "Hedy" }, secret: OLD, salt: SESSION });
    const decode = async (secrets: string[], value = token) =>
      (await (await runtime.fetch("/runtime/jwt/decode", post({ token: value, secrets }))).json()).claims;
    expect(await decode([NEW, OLD])).toMatchObject({ sub: "u7", name: "Hedy" });
    expect(await decode([NEW])).toBeNull();
    const parts = token.split(".");
    parts[4] = `${(parts[4] ?? "").startsWith("A") ? "B" : "A"}${(parts[4] ?? "").slice(1)}`;
    expect(await decode([NEW, OLD], parts.join("."))).toBeNull();
    expect(await decode([OLD, NEW], parts.join("."))).toBeNull();
    // A header without `kid` names no key: each secret's tag is computed in turn, the one of NEW
    // failing before OLD's verifies (a chain of Web Crypto's promises here).
    const key = new Uint8Array(hkdfSync("sha256", OLD, SESSION, `Auth.js Generated Encryption Key (${SESSION})`, 64));
    const unnamed = await new EncryptJWT({ sub: "u6", name: "Emmy" })
      .setProtectedHeader({ alg: "dir", enc: "A256CBC-HS512" })
      .setExpirationTime("1h")
      .encrypt(key);
    expect(await decode([NEW, OLD], unnamed)).toMatchObject({ sub: "u6", name: "Emmy" });
    expect(await decode([NEW], unnamed)).toBeNull();
  });

  it("verifies password hashes Node.js made at the Web cost, refuses Node's 128 MiB default with the fix, and Node.js verifies its hashes", async () => {
    const web = { parameters: { ln: 14, r: 8, p: 8 } };
    const portable = await hashPassword("correct horse", web);
    const answer = await (
      await runtime.fetch("/runtime/password", post({ password: "correct horse", hash: portable }))
    ).json();
    expect(answer).toEqual({ verified: true, needsRehash: false });
    const wrong = await (
      await runtime.fetch("/runtime/password", post({ password: "wrong horse", hash: portable }))
    ).json();
    expect(wrong).toEqual({ verified: false, needsRehash: false });

    // Node's default: 128 MiB, more than a Worker has for everything. Refused, naming the fix.
    const heavy = "$scrypt$ln=17,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g";
    const refused = await (await runtime.fetch("/runtime/password", post({ password: "x", hash: heavy }))).json();
    expect(refused.error).toContain("needs 128 MiB");
    expect(refused.error).toContain("ln: 14, r: 8, p: 8");
    expect(refused.needsRehash).toBe(true);

    const { hash } = await (await runtime.fetch("/runtime/password/new", post({ password: "battery staple" }))).json();
    expect(hash).toMatch(/^\$scrypt\$ln=14,r=8,p=8\$/);
    expect(await verifyPassword("battery staple", hash)).toBe(true);
    expect(needsRehash(hash, web)).toBe(false);
  });
});
