// Two copies of core's module loaded at once, as a bundler makes them (one per server layer) or
// an application that installed core twice: the built package and a copy of it in a folder of its
// own. Each copy has its own module-level state, so only the registry of applications on
// `globalThis` (src/lib/base/application.ts) can make their limits, revocations and caches one.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CookieJar, testSecret } from "./helpers.js";

type Core = typeof import("@latchkey/core");
type Providers = typeof import("@latchkey/core/providers/credentials");
type Memory = typeof import("@latchkey/core/memory-adapter");
type Config = import("@latchkey/core").AuthConfig;

const coreDir = fileURLToPath(new URL("..", import.meta.url));
const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

interface Copy {
  core: Core;
  Credentials: Providers["default"];
  memory: Memory;
}

let folder: string;
let first: Copy;
let second: Copy;

async function load(base: string): Promise<Copy> {
  const at = (path: string) => pathToFileURL(join(base, "dist", path)).href;
  const [core, providers, memory] = await Promise.all([
    import(at("index.js")) as Promise<Core>,
    import(at("providers/credentials.js")) as Promise<Providers>,
    import(at("memory-adapter.js")) as Promise<Memory>,
  ]);
  return { core, Credentials: providers.default, memory };
}

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), "latchkey-core-copy-"));
  cpSync(join(coreDir, "dist"), join(folder, "dist"), { recursive: true });
  cpSync(join(coreDir, "package.json"), join(folder, "package.json"));
  // Its dependencies (oauth4webapi, ...) from the repository's node_modules, as an installed copy finds them.
  symlinkSync(join(repoRoot, "node_modules"), join(folder, "node_modules"), "dir");
  first = await load(coreDir);
  second = await load(folder);
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const ORIGIN = "http://localhost:3000";
const quiet = { error() {}, warn() {}, debug() {} };

function configOf(copy: Copy, secret: string, extra: Partial<Config> = {}): Config {
  return {
    secret,
    trustHost: true,
    logger: quiet,
    providers: [
      copy.Credentials({
        credentials: { username: {}, password: { type: "password" } },
        authorize: async (c) =>
          c.username === "ada" && c.password === "lovelace"
            ? { id: "u1", name: "Ada", email: "ada@example.com" }
            : null,
      }),
    ],
    ...extra,
  };
}

async function send(copy: Copy, config: Config, path: string, jar: CookieJar, form?: Record<string, string>) {
  const headers = new Headers();
  if (jar.cookies.size) headers.set("cookie", jar.header());
  if (form) headers.set("content-type", "application/x-www-form-urlencoded");
  const response = await copy.core.Auth(
    new Request(`${ORIGIN}${path}`, {
      method: form ? "POST" : "GET",
      headers,
      body: form && new URLSearchParams(form),
    }),
    config,
  );
  jar.apply(response);
  return response;
}

async function post(copy: Copy, config: Config, path: string, jar: CookieJar, form: Record<string, string> = {}) {
  const { csrfToken } = (await (await send(copy, config, "/auth/csrf", jar)).json()) as { csrfToken: string };
  return send(copy, config, path, jar, { csrfToken, ...form });
}

async function who(copy: Copy, config: Config, jar: CookieJar): Promise<string | undefined> {
  const body = (await (await send(copy, config, "/auth/session", jar)).json()) as { user?: { email?: string } } | null;
  return body?.user?.email;
}

function stolen(jar: CookieJar): CookieJar {
  const copy = new CookieJar();
  for (const [name, value] of jar.cookies) copy.cookies.set(name, value);
  return copy;
}

describe("rule: two copies of core's module in one process keep one state per application", () => {
  it("they are two module instances", () => {
    expect(second.core.Auth).not.toBe(first.core.Auth);
  });

  it("attack: a limit reached through one copy holds through the other (the limiter is not halved)", async () => {
    const secret = testSecret("copies-limit");
    const a = configOf(first, secret);
    const b = configOf(second, secret);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const copy = i % 2 ? second : first;
      const res = await post(copy, i % 2 ? b : a, "/auth/callback/credentials", new CookieJar(), {
        username: "ada",
        password: "wrong",
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([302, 302, 302, 302, 302]);
    const right = { username: "ada", password: "lovelace" };
    expect((await post(second, b, "/auth/callback/credentials", new CookieJar(), right)).status).toBe(429);
    expect((await post(first, a, "/auth/callback/credentials", new CookieJar(), right)).status).toBe(429);
  });

  it("attack: a sign-out under `revocation: true` through one copy ends the session read through the other", async () => {
    const secret = testSecret("copies-revocation");
    const a = configOf(first, secret, { session: { revocation: true } });
    const b = configOf(second, secret, { session: { revocation: true } });
    const jar = new CookieJar();
    await post(first, a, "/auth/callback/credentials", jar, { username: "ada", password: "lovelace" });
    const thief = stolen(jar);
    expect(await who(second, b, thief)).toBe("ada@example.com");
    await post(second, b, "/auth/signout", jar);
    expect(await who(first, a, thief)).toBeUndefined();
    expect(await who(second, b, thief)).toBeUndefined();
  });

  it("attack: a database session dropped through one copy's `session.cache` is dropped in the other's", async () => {
    const secret = testSecret("copies-cache");
    const store = first.memory.createMemoryStore();
    const adapter = first.memory.MemoryAdapter(store);
    await adapter.createUser?.({ id: "u-cache", email: "ada@example.com", emailVerified: null });
    const token = `copies-${secret}`;
    const row = () => ({ sessionToken: token, userId: "u-cache", expires: new Date(Date.now() + 30 * 86_400_000) });
    await adapter.createSession?.(row());
    const cached = (copy: Copy) =>
      configOf(copy, secret, { adapter, session: { strategy: "database", cache: true }, providers: [] });
    const a = cached(first);
    const b = cached(second);
    const jar = new CookieJar();
    jar.cookies.set("authjs.session-token", token);
    // Warm in the second copy: it serves the session with the row gone behind its back.
    await vi.waitFor(async () => {
      await who(second, b, stolen(jar));
      store.sessions.delete(token);
      // (a copy of the jar: a read that finds no session clears the cookie)
      const served = await who(second, b, stolen(jar));
      await adapter.createSession?.(row());
      expect(served).toBe("ada@example.com");
    });
    const thief = stolen(jar);
    await post(first, a, "/auth/signout", jar);
    expect(await who(second, b, thief)).toBeUndefined();
  });

  it("a copy that finds a registry of another version keeps its own and says so once", () => {
    const script = `
      globalThis[Symbol.for("latchkey.applications")] = { version: 0 };
      const { Auth } = await import(${JSON.stringify(pathToFileURL(join(coreDir, "dist", "index.js")).href)});
      const warnings = [];
      const config = { secret: ${JSON.stringify(testSecret("foreign"))}, providers: [], logger: { error() {}, debug() {}, warn: (code) => warnings.push(code) } };
      for (const object of [config, { ...config }, { ...config }]) await Auth(new Request("http://localhost/auth/session"), object);
      console.log(JSON.stringify(warnings));
    `;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    const warnings: string[] = JSON.parse(out.trim().split("\n").at(-1) ?? "[]");
    expect(warnings.filter((w) => w === "application-registry-foreign")).toHaveLength(1);
  });
});
