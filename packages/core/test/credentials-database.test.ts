/**
 * Credentials sign-in with database sessions (the provider's `databaseSessions` opt-in), in
 * process on the memory adapter: the user and the `credentials` account are found or created by
 * the id `authorize()` returns (never by e-mail), the session is a row, and the refusal of
 * Auth.js stays the default without the opt-in.
 */
import { describe, expect, it } from "vitest";
import type { AuthConfig } from "../src/index.js";
import { resolveConfig } from "../src/lib/config/resolve.js";
import { createMemoryStore, MemoryAdapter } from "../src/memory-adapter.js";
import { dummyVerify, hashPassword, verifyPassword } from "../src/password.js";
import Credentials from "../src/providers/credentials.js";
import { CookieJar, call, csrfToken, recordingLogger, SECRET } from "./helpers.js";

const SESSION = "authjs.session-token";
const FAST = { parameters: { ln: 10 } };

/** The application's own user table: login name → id, profile and password hash. */
async function applicationUsers() {
  const rows = new Map<string, { id: string; name: string; email: string; passwordHash: string }>();
  for (const [login, id, password] of [
    ["ada", "app-user-1", "analytical engine"],
    ["grace", "app-user-2", "compiler pioneer"],
  ] as const) {
    rows.set(login, {
      id,
      name: login.toUpperCase(),
      email: `${login}@example.com`,
      passwordHash: await hashPassword(password, FAST),
    });
  }
  return rows;
}

async function setup(overrides: Partial<AuthConfig> = {}, provider: Partial<Parameters<typeof Credentials>[0]> = {}) {
  const store = createMemoryStore();
  const adapter = MemoryAdapter(store);
  const users = await applicationUsers();
  const events: Array<[string, unknown]> = [];
  const log = recordingLogger();
  let jwtCalls = 0;
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    logger: log.logger,
    rateLimit: false,
    providers: [
      Credentials({
        databaseSessions: true,
        credentials: { login: {}, password: {} },
        async authorize({ login, password }) {
          const row = users.get(String(login));
          if (!row) return dummyVerify(String(password), FAST).then(() => null);
          if (!(await verifyPassword(String(password), row.passwordHash))) return null;
          return { id: row.id, name: row.name, email: row.email, passwordHash: row.passwordHash } as never;
        },
        ...provider,
      }),
    ],
    events: {
      createUser: (m) => void events.push(["createUser", m.user.id]),
      linkAccount: (m) => void events.push(["linkAccount", m.account.providerAccountId]),
      signIn: (m) => void events.push(["signIn", { id: m.user.id, isNewUser: m.isNewUser }]),
      signOut: () => void events.push(["signOut", null]),
    },
    callbacks: {
      jwt: ({ token }) => {
        jwtCalls++;
        return token;
      },
    },
    ...overrides,
  };
  return { store, adapter, users, events, log, config, jwtCalls: () => jwtCalls };
}

async function signIn(config: AuthConfig, form: Record<string, string>, jar = new CookieJar()) {
  const csrf = await csrfToken(config, jar);
  const response = await call(config, "/auth/callback/credentials", { jar, form: { csrfToken: csrf, ...form } });
  return { jar, response };
}

describe("credentials with database sessions is an opt-in; Auth.js's refusal stays the default", () => {
  it("without `databaseSessions`, resolution fails with UnsupportedStrategy naming the option", () => {
    const base = { secret: SECRET, trustHost: true, adapter: MemoryAdapter() };
    const refusal = (() => {
      try {
        resolveConfig({ ...base, providers: [Credentials({ authorize: () => null })] });
      } catch (error) {
        return error as Error & { type?: string };
      }
    })();
    expect(refusal?.type).toBe("UnsupportedStrategy");
    expect(refusal?.message).toMatch(/`databaseSessions: true`/);
    expect(() =>
      resolveConfig({ ...base, providers: [Credentials({ authorize: () => null, databaseSessions: "yes" as never })] }),
    ).toThrow(/`databaseSessions` must be true or false/);
    expect(
      resolveConfig({ ...base, providers: [Credentials({ authorize: () => null, databaseSessions: true })] }).session
        .strategy,
    ).toBe("database");
  });
});

describe("a credentials sign-in under database sessions", () => {
  it("creates the user (id from authorize) and a credentials account, issues a session row; sign-out deletes it", async () => {
    const { store, events, config, jwtCalls } = await setup();
    const { jar, response } = await signIn(config, { login: "ada", password: "analytical engine" });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("http://localhost:3000");
    expect([...store.users.keys()]).toEqual(["app-user-1"]);
    expect(store.users.get("app-user-1")).toEqual({
      id: "app-user-1",
      name: "ADA",
      email: "ada@example.com",
      image: null,
      emailVerified: null,
    });
    expect([...store.accounts.values()]).toEqual([
      { provider: "credentials", providerAccountId: "app-user-1", type: "credentials", userId: "app-user-1" },
    ]);
    const [token, session] = [...store.sessions][0] ?? [];
    expect(session?.userId).toBe("app-user-1");
    expect(jar.get(SESSION)).toBe(token);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(events).toEqual([
      ["createUser", "app-user-1"],
      ["linkAccount", "app-user-1"],
      ["signIn", { id: "app-user-1", isNewUser: true }],
    ]);
    expect(jwtCalls()).toBe(0);

    const read = (await (await call(config, "/auth/session", { jar })).json()) as {
      user: { name: string; email: string };
    };
    expect(read.user).toMatchObject({ name: "ADA", email: "ada@example.com" });

    const out = await call(config, "/auth/signout", { jar, form: { csrfToken: await csrfToken(config, jar) } });
    expect(out.status).toBe(302);
    expect(store.sessions.size).toBe(0);
    expect(await (await call(config, "/auth/session", { jar })).json()).toBeNull();

    // Again: the same user and account, a new session, no second createUser.
    events.length = 0;
    await signIn(config, { login: "ada", password: "analytical engine" });
    expect(store.users.size).toBe(1);
    expect(store.accounts.size).toBe(1);
    expect(store.sessions.size).toBe(1);
    expect(events).toEqual([["signIn", { id: "app-user-1", isNewUser: false }]]);
  });

  it("the first sign-in lands on pages.newUser, later ones on the callback URL", async () => {
    const { config } = await setup({ pages: { newUser: "/welcome" } });
    const first = await signIn(config, { login: "grace", password: "compiler pioneer" });
    expect(first.response.headers.get("location")).toMatch(/^\/welcome\?callbackUrl=/);
    const second = await signIn(config, { login: "grace", password: "compiler pioneer" });
    expect(second.response.headers.get("location")).toBe("http://localhost:3000");
  });

  it("an id that names a stored user (who came by OAuth or a magic link) signs in that user and links the account", async () => {
    const { store, adapter, events, config } = await setup();
    await adapter.createUser!({
      id: "app-user-2",
      name: "Grace H.",
      email: "grace@example.com",
      emailVerified: new Date(0),
      image: null,
    });
    await signIn(config, { login: "grace", password: "compiler pioneer" });
    expect(store.users.size).toBe(1);
    expect(store.users.get("app-user-2")?.name).toBe("Grace H."); // not overwritten
    expect(store.accounts.get([...store.accounts.keys()][0] as string)).toMatchObject({
      userId: "app-user-2",
      type: "credentials",
    });
    expect(events.map(([name]) => name)).toEqual(["linkAccount", "signIn"]);
  });

  it("what authorize() returned beyond the user columns (a password hash) is not stored", async () => {
    const { store, config } = await setup();
    await signIn(config, { login: "ada", password: "analytical engine" });
    expect(JSON.stringify([...store.users.values()])).not.toMatch(/scrypt|passwordHash/);
  });
});

describe("attacks: who signs in is only what authorize() decides", () => {
  it("fields added or repeated by the client (id, userId, email of another user) change nothing", async () => {
    const { store, config } = await setup();
    await signIn(config, { login: "grace", password: "compiler pioneer" });
    const victimSessions = () => [...store.sessions.values()].filter((s) => s.userId === "app-user-2").length;
    const { jar } = await signIn(config, {
      login: "ada",
      password: "analytical engine",
      id: "app-user-2",
      userId: "app-user-2",
      email: "grace@example.com",
      providerAccountId: "app-user-2",
    });
    const read = (await (await call(config, "/auth/session", { jar })).json()) as { user: { email: string } };
    expect(read.user.email).toBe("ada@example.com");
    expect(victimSessions()).toBe(1);
    const wrong = await signIn(config, { login: "grace", password: "analytical engine", id: "app-user-2" });
    expect(wrong.response.headers.get("location")).toMatch(/error=CredentialsSignin/);
    expect(wrong.jar.get(SESSION)).toBeUndefined();
    expect(victimSessions()).toBe(1);
  });

  it("authorize() returning another user's id signs in that user: the id is the application's word (documented)", async () => {
    const { store, adapter, config } = await setup({}, { authorize: () => ({ id: "someone-else" }) });
    await adapter.createUser!({
      id: "someone-else",
      name: "Other",
      email: "other@example.com",
      emailVerified: null,
      image: null,
    });
    const { jar } = await signIn(config, { login: "anything", password: "anything" });
    expect(
      ((await (await call(config, "/auth/session", { jar })).json()) as { user: { email: string } }).user.email,
    ).toBe("other@example.com");
    expect([...store.accounts.values()][0]).toMatchObject({
      providerAccountId: "someone-else",
      userId: "someone-else",
    });
  });

  it("a new id with an e-mail another user holds is refused: never linked by e-mail, nothing written", async () => {
    const { store, adapter, config, log } = await setup(
      {},
      {
        authorize: () => ({ id: "attacker-id", email: "victim@example.com", name: "Mallory" }),
      },
    );
    await adapter.createUser!({
      id: "victim",
      email: "victim@example.com",
      name: "Victim",
      emailVerified: new Date(),
      image: null,
    });
    const { jar, response } = await signIn(config, { login: "mallory", password: "x" });
    expect(response.headers.get("location")).toMatch(/error=AccountNotLinked/);
    expect(jar.get(SESSION)).toBeUndefined();
    expect([...store.users.keys()]).toEqual(["victim"]);
    expect(store.accounts.size).toBe(0);
    expect(store.sessions.size).toBe(0);
    expect(log.errors.map((e) => e.message).join("\n")).toMatch(/never matched by e-mail/);
  });

  it.each([
    ["no id", {}],
    ["an empty id", { id: "" }],
    ["a blank id", { id: "  " }],
    ["an object id", { id: { toString: (): string => "victim" } }],
  ])("authorize() returning %s is a logged configuration error, not a random user", async (_, user) => {
    const { store, config, log } = await setup({}, { authorize: () => user as never });
    const { jar, response } = await signIn(config, { login: "ada", password: "x" });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toMatch(/error=Configuration/);
    expect(jar.get(SESSION)).toBeUndefined();
    expect(store.users.size + store.accounts.size + store.sessions.size).toBe(0);
    expect(log.errors.map((e) => e.message).join("\n")).toMatch(/must return the user's `id`/);
  });

  it("the signIn callback refusing writes nothing", async () => {
    const { store, config, events } = await setup({ callbacks: { signIn: () => false } });
    const { response } = await signIn(config, { login: "ada", password: "analytical engine" });
    expect(response.headers.get("location")).toMatch(/error=AccessDenied/);
    expect(store.users.size + store.accounts.size + store.sessions.size).toBe(0);
    expect(events).toEqual([]);
  });

  it("non-ASCII, control-character and odd-case ids are exact keys: 'Ada' and 'ada' are two users", async () => {
    let next = "";
    const { store, config } = await setup({}, { authorize: () => ({ id: next, name: next }) });
    for (const id of ["ada", "Ada", "ädä\u0301", "ada\u0000x", "ada "]) {
      next = id;
      const { response } = await signIn(config, { login: "ada", password: "x" });
      expect(response.headers.get("location")).toBe("http://localhost:3000");
    }
    expect([...store.users.keys()].sort()).toEqual(["Ada", "ada", "ada ", "ada\u0000x", "ädä\u0301"].sort());
  });

  it("30 concurrent first sign-ins give 30 sessions of one user, not 30 users", async () => {
    // A barrier in authorize(): all 30 leave it together, so they race through the look-ups and
    // writes instead of arriving one after the other.
    let arrived = 0;
    let release = () => {};
    const allThere = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { store, config } = await setup(
      {},
      {
        async authorize() {
          if (++arrived === 30) release();
          await allThere;
          return { id: "app-user-1", name: "ADA", email: "ada@example.com" };
        },
      },
    );
    const jars = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const jar = new CookieJar();
        return { jar, csrf: await csrfToken(config, jar) };
      }),
    );
    const responses = await Promise.all(
      jars.map(({ jar, csrf }) =>
        call(config, "/auth/callback/credentials", {
          jar,
          form: { csrfToken: csrf, login: "ada", password: "analytical engine" },
        }),
      ),
    );
    expect(responses.map((r) => r.headers.get("location"))).toEqual(Array(30).fill("http://localhost:3000"));
    expect([...store.users.keys()]).toEqual(["app-user-1"]);
    expect(store.accounts.size).toBe(1);
    expect(store.sessions.size).toBe(30);
    expect(new Set([...store.sessions.values()].map((s) => s.userId))).toEqual(new Set(["app-user-1"]));
    expect(new Set(jars.map(({ jar }) => jar.get(SESSION))).size).toBe(30);
  });
});
