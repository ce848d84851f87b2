// `sessionReadOf` (the lean session read of the framework packages' `auth()`) answers exactly what
// `GET <basePath>/session` through the whole pipeline answers: the same session, the same cookies
// (re-issued or cleared), the same error log lines, for every kind of configuration and request.
// And for the common case, a JWT session with the built-in codec, it answers without a promise.
import { describe, expect, it } from "vitest";
import type { AuthConfig } from "../src/index.js";
import { internalRequest, serve, sessionReadOf } from "../src/internal.js";
import { decode, encode } from "../src/jwt.js";
import { createMemoryStore, MemoryAdapter } from "../src/memory-adapter.js";
import type { Cookie } from "../src/shapes/data.js";
import { makeConfig, SECRET, signIn } from "./helpers.js";

/** Error lines a configuration logs, by name and message. */
function logged(config: AuthConfig): { config: AuthConfig; errors: string[] } {
  const errors: string[] = [];
  const logger = { error: (e: Error) => void errors.push(`${e.name}: ${e.message}`), warn: () => {}, debug: () => {} };
  // The internal request is made from the configured base path, as the framework packages set it.
  return { config: { basePath: "/auth", ...config, logger }, errors };
}

/** A cookie as compared: its name, whether it is a deletion, its attributes but the expiry. */
function shape(cookies: Cookie[]) {
  return cookies.map(({ name, value, options }) => {
    const { expires, ...rest } = options ?? {};
    return { name, deleted: value === "" || options?.maxAge === 0, rest, expires: expires !== undefined };
  });
}

interface Case {
  /** The configuration, or a maker of equal ones for reads that change the store (one each way). */
  config: AuthConfig | (() => Promise<AuthConfig>);
  cookie?: string;
  host?: string;
}

/** Reads the session both ways, on configurations of their own (each logs its own lines). */
async function compare({ config, cookie, host = "localhost:3000" }: Case) {
  const make = async () => (typeof config === "function" ? await config() : config);
  const viaServe = logged(await make());
  const res = await serve(
    internalRequest(viaServe.config, { protocol: "http", host }, "GET", "/session", { cookie }),
    viaServe.config,
  );
  const body = res.body;
  const served = {
    session: (res.status ?? 200) === 200 && body !== null && typeof body === "object" && !res.redirect ? body : null,
    cookies: res.cookies ?? [],
  };
  const lean = logged(await make());
  const answer = sessionReadOf({ protocol: "http", host, cookieHeader: cookie }, lean.config);
  const read = answer instanceof Promise ? await answer : answer;
  // A re-issued session's expiry is "now + maxAge", read a few milliseconds apart.
  const when = (session: unknown) => Date.parse(String((session as { expires?: string } | null)?.expires ?? 0));
  expect({ ...read.session, expires: 0 }).toEqual({ ...served.session, expires: 0 });
  expect(Math.abs(when(read.session) - when(served.session))).toBeLessThan(5_000);
  expect(shape(read.cookies)).toEqual(shape(served.cookies));
  expect(lean.errors).toEqual(viaServe.errors);
  return { read, sync: !(answer instanceof Promise), errors: lean.errors };
}

async function jwtCookie(config: AuthConfig = makeConfig()): Promise<string> {
  const { jar } = await signIn(config);
  return `authjs.session-token=${jar.get("authjs.session-token")}`;
}

describe("sessionReadOf answers as GET /session does", () => {
  it("a JWT session: read without a promise, and re-issued without one when updateAge has passed", async () => {
    const cookie = await jwtCookie();
    const fresh = await compare({ config: makeConfig(), cookie });
    expect(fresh.read.session?.user?.email).toBe("ada@example.com");
    expect(fresh.read.cookies).toEqual([]);
    expect(fresh.sync).toBe(true);
    const due = await compare({ config: makeConfig({ session: { updateAge: 0 } }), cookie });
    expect(due.read.cookies.map((c) => c.name)).toEqual(["authjs.session-token"]);
    expect(due.sync).toBe(true);
  });

  it("the application's jwt and session callbacks, session event and own codec: the same answer, awaited", async () => {
    const cookie = await jwtCookie();
    const events: string[] = [];
    const config = makeConfig({
      session: { updateAge: 0 },
      callbacks: {
        jwt: ({ token }) => ({ ...token, role: "admin" }),
        session: ({ session, token }) => ({ ...session, role: token.role }),
      },
      events: { session: () => void events.push("session") },
      jwt: { encode: (params) => encode(params), decode: (params) => decode(params) },
    });
    const out = await compare({ config, cookie });
    expect(out.read.session).toMatchObject({ role: "admin", user: { email: "ada@example.com" } });
    expect(out.read.cookies.map((c) => c.name)).toEqual(["authjs.session-token"]);
    expect(events).toEqual(["session", "session"]);
  });

  it("a session cookie that does not open: cleared the same way; none: nothing", async () => {
    const garbage = await compare({ config: makeConfig(), cookie: "authjs.session-token=garbage" });
    expect(garbage.read.session).toBeNull();
    expect(shape(garbage.read.cookies)[0]).toMatchObject({ name: "authjs.session-token", deleted: true });
    const none = await compare({ config: makeConfig(), cookie: "other=1" });
    expect(none.read).toEqual({ session: null, cookies: [] });
  });

  it("revocation on: a live session is read the same way (the list loaded at the first read)", async () => {
    const config = makeConfig({ session: { revocation: true } });
    const cookie = await jwtCookie(config);
    const live = await compare({ config, cookie });
    expect(live.read.session?.user?.email).toBe("ada@example.com");
  });

  it("database sessions (re-issued past updateAge), and a store that fails (logged as the action logs it)", async () => {
    // Each read pushes the session's expiry forward: each way gets a store of its own, seeded alike.
    const seeded = async (extra: Partial<AuthConfig> = {}) => {
      const adapter = MemoryAdapter(createMemoryStore());
      await adapter.createUser?.({ id: "u1", email: "ada@example.com", emailVerified: null });
      const expires = new Date(Date.now() + 86_400_000);
      await adapter.createSession?.({ sessionToken: "t".repeat(64), userId: "u1", expires });
      // No credentials provider: it is for JWT sessions only.
      return makeConfig({ adapter, providers: [], session: { strategy: "database" }, ...extra });
    };
    const cookie = `authjs.session-token=${"t".repeat(64)}`;
    const read = await compare({ config: () => seeded(), cookie });
    expect(read.read.session?.user?.email).toBe("ada@example.com");
    expect(read.read.cookies.map((c) => c.name)).toEqual(["authjs.session-token"]);
    expect(read.errors).toEqual([]);
    const failing = async () => {
      const config = await seeded();
      const getSessionAndUser = async () => {
        throw new Error("the store is down");
      };
      return { ...config, adapter: { ...config.adapter, getSessionAndUser } };
    };
    const down = await compare({ config: failing, cookie });
    expect(down.read).toEqual({ session: null, cookies: [] });
    expect(down.errors).toHaveLength(1);
  });

  it("attack: an untrusted host, a malformed host and a configuration that cannot be resolved are signed out, logged alike", async () => {
    const cookie = await jwtCookie();
    const untrusted = await compare({ config: makeConfig({ trustHost: false }), cookie, host: "app.example" });
    expect(untrusted.read).toEqual({ session: null, cookies: [] });
    expect(untrusted.errors.join()).toContain("UntrustedHost");
    for (const host of ["exa mple", "evil.example/x", "a@b"]) {
      const malformed = await compare({ config: makeConfig(), cookie, host });
      expect(malformed.read).toEqual({ session: null, cookies: [] });
      expect(malformed.errors).toEqual([]);
    }
    const unresolved = await compare({ config: makeConfig({ secret: "short" }), cookie });
    expect(unresolved.read).toEqual({ session: null, cookies: [] });
    expect(unresolved.errors).toHaveLength(1);
    expect(SECRET.length).toBeGreaterThan(31);
  });
});
