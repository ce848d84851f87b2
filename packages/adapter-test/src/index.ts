/**
 * The conformance suite every Latchkey adapter runs: one set of vitest tests, one behaviour.
 * @module adapter-test
 */
import { randomUUID } from "node:crypto";
import {
  type Adapter,
  type AdapterAccount,
  type AdapterAuthenticator,
  type AdapterSession,
  type AdapterUser,
  adapterMethods,
  type VerificationToken,
} from "@latchkey/core/adapters";
import { afterAll, beforeAll, describe, expect, type TestContext, it as vitestIt } from "vitest";

/** The kinds of record an adapter stores. */
export type RecordKind = "user" | "account" | "session" | "verificationToken" | "authenticator";

/**
 * Reads the store directly, around the adapter, for what the adapter's interface cannot show
 * (that a record is really gone, not just hidden).
 */
export interface StorageProbe {
  /**
   * Whether a record is stored, expired or not. Keys: user → id; account → provider,
   * providerAccountId; session → sessionToken; verificationToken → identifier, token;
   * authenticator → credentialID.
   */
  exists(kind: RecordKind, ...key: string[]): Promise<boolean>;
  /** How many stored entries (records, index entries, per-user sets) still belong to a user. */
  recordsOf(userId: string): Promise<number>;
}

/** What a conformance setup hands the suite. */
export interface ConformanceFixture {
  adapter: Adapter;
  /** Closes connections and removes everything the run stored. */
  teardown: () => Promise<void>;
  /** Direct access to the store; the storage checks are skipped without it. */
  db?: StorageProbe;
}

type Method = Exclude<keyof Adapter, "transaction">;

/**
 * How an Auth.js adapter (`@auth/drizzle-adapter`, `@auth/pg-adapter`, ...) runs the suite: the
 * optional methods it lacks, and the rules it leaves to Auth.js's core (or its schema cannot keep),
 * each with the reason. What remains is what Latchkey relies on from such an adapter.
 */
export interface AuthjsAdapterProfile {
  /**
   * The methods the adapter does not have: Latchkey's extensions, and any of Auth.js's optional
   * ones it lacks. One test checks that exactly these are missing; a test that calls one of them
   * is reported as skipped, not passed.
   */
  absent: Method[];
  /** Tests that do not apply, by their title, with why (shown in the skipped test's title). */
  notApplicable?: Record<string, string>;
}

/** Options of {@link runAdapterConformance}. */
export interface ConformanceOptions {
  /** Registers the tests as skipped (the server the adapter needs is not running). @default false */
  skip?: boolean;
  /** Runs the suite over an Auth.js adapter (see {@link AuthjsAdapterProfile}). */
  authjs?: AuthjsAdapterProfile;
}

/** Thrown by the suite when a test calls a method the profile declares absent: that test is skipped. */
class AbsentMethod extends Error {}
type Required<K extends Method> = NonNullable<Adapter[K]>;

/**
 * Registers the conformance tests of one adapter with vitest, in a `describe` block named `name`.
 * `setup` runs once before the tests and must return an adapter over an empty (or at least
 * disjoint) store; every test creates its own records with random ids, so tests do not depend on
 * each other or on their order.
 *
 * @example
 * ```ts
 * import { runAdapterConformance } from "@latchkey/adapter-test"
 * import { MemoryAdapter } from "@latchkey/core/memory-adapter"
 * runAdapterConformance("MemoryAdapter", async () => ({ adapter: MemoryAdapter(), teardown: async () => {} }))
 * ```
 */
export function runAdapterConformance(
  name: string,
  setup: () => Promise<ConformanceFixture>,
  options: ConformanceOptions = {},
): void {
  const profile = options.authjs;
  const absent = new Set<string>(profile?.absent ?? []);
  const titles = new Set<string>();
  /** vitest's `it`, knowing the profile: a test that does not apply, or needs an absent method, is skipped. */
  function it(title: string, test: (ctx: TestContext) => Promise<unknown>): void {
    titles.add(title);
    const reason = profile?.notApplicable?.[title];
    if (reason !== undefined) {
      vitestIt.skip(`${title} (not applicable: ${reason})`, test);
      return;
    }
    vitestIt(title, async (ctx) => {
      try {
        await test(ctx);
      } catch (e) {
        if (e instanceof AbsentMethod) ctx.skip();
        throw e;
      }
    });
  }
  describe.skipIf(options.skip ?? false)(`${name}: adapter conformance`, () => {
    let fixture: ConformanceFixture | undefined;
    beforeAll(async () => {
      fixture = await setup();
    });
    afterAll(async () => {
      await fixture?.teardown();
    });

    function method<K extends Method>(key: K): Required<K> {
      const adapter = fixture?.adapter;
      if (!adapter) throw new Error("setup did not run");
      const fn = adapter[key];
      if (typeof fn !== "function" && absent.has(key)) throw new AbsentMethod(`the adapter has no ${key}() (declared)`);
      if (typeof fn !== "function") throw new Error(`the adapter has no ${key}()`);
      return fn.bind(adapter) as Required<K>;
    }
    const call = new Proxy({} as { [K in Method]: Required<K> }, { get: (_, key) => method(key as Method) });
    const probe = () => fixture?.db;

    // Dates with milliseconds, so a store that drops them fails.
    const later = (ms: number) => new Date(Math.floor(Date.now() / 1000) * 1000 + ms + 123);

    function newUser(overrides: Partial<AdapterUser> = {}): AdapterUser {
      const id = randomUUID();
      return {
        id,
        name: "Ada Lovelace",
        email: `ada-${id}@example.com`,
        emailVerified: new Date("2024-05-06T07:08:09.123Z"),
        image: "https://example.com/ada.png",
        ...overrides,
      };
    }
    function newAccount(userId: string, overrides: Partial<AdapterAccount> = {}): AdapterAccount {
      return {
        userId,
        type: "oidc",
        provider: "acme",
        providerAccountId: randomUUID(),
        access_token: "access-token",
        refresh_token: "refresh-token",
        id_token: "header.payload.signature",
        token_type: "bearer",
        scope: "openid email profile",
        expires_at: 1_900_000_000,
        session_state: "state",
        ...overrides,
      };
    }
    function newAuthenticator(userId: string, overrides: Partial<AdapterAuthenticator> = {}): AdapterAuthenticator {
      return {
        userId,
        credentialID: randomUUID(),
        credentialPublicKey: "pQECAyYgASFYIDx2",
        counter: 0,
        credentialDeviceType: "multiDevice",
        credentialBackedUp: true,
        transports: "internal,hybrid",
        providerAccountId: randomUUID(),
        ...overrides,
      };
    }
    function newToken(overrides: Partial<VerificationToken> = {}): VerificationToken {
      return {
        identifier: `ada-${randomUUID()}@example.com`,
        token: randomUUID(),
        expires: later(60_000),
        ...overrides,
      };
    }
    // What Auth.js's core passes to these lookups: the keys alone, never the whole record (an
    // adapter such as Prisma's refuses the fields its query does not name).
    const accountKey = ({ provider, providerAccountId }: AdapterAccount) => ({ provider, providerAccountId });
    const tokenKey = ({ identifier, token }: VerificationToken) => ({ identifier, token });
    async function storedUser(overrides: Partial<AdapterUser> = {}): Promise<AdapterUser> {
      return call.createUser(newUser(overrides));
    }

    if (profile) {
      it("Auth.js adapter: exactly the declared methods are absent, and every inapplicable test is named right", async () => {
        const adapter = fixture?.adapter as Adapter;
        const missing = adapterMethods.filter((m) => typeof adapter[m] !== "function");
        expect(missing.sort()).toEqual([...absent].sort());
        // Runs last among the registrations below only in name: the titles are collected at
        // registration, which is over before any test runs.
        const unknown = Object.keys(profile.notApplicable ?? {}).filter((title) => !titles.has(title));
        expect(unknown, "notApplicable names tests the suite does not have").toEqual([]);
      });
    }

    describe("users", () => {
      it("createUser stores a user that getUser, getUserByEmail return unchanged", async () => {
        const user = newUser();
        expect(await call.createUser(user)).toEqual(user);
        expect(await call.getUser(user.id)).toEqual(user);
        expect(await call.getUserByEmail(user.email)).toEqual(user);
        const read = await call.getUser(user.id);
        expect(read?.emailVerified).toBeInstanceOf(Date);
        expect(read?.emailVerified?.toISOString()).toBe("2024-05-06T07:08:09.123Z");
      });

      it("keeps null fields null", async () => {
        const user = newUser({ name: null, image: null, emailVerified: null });
        await call.createUser(user);
        expect(await call.getUser(user.id)).toEqual(user);
      });

      it("returns null for a missing user, e-mail or account", async () => {
        expect(await call.getUser(randomUUID())).toBeNull();
        expect(await call.getUserByEmail(`nobody-${randomUUID()}@example.com`)).toBeNull();
        expect(await call.getUserByAccount({ provider: "acme", providerAccountId: randomUUID() })).toBeNull();
      });

      it("rejects a second user with the same e-mail and keeps the first", async () => {
        const first = await storedUser();
        await expect(async () => call.createUser(newUser({ email: first.email, name: "Impostor" }))).rejects.toThrow();
        expect(await call.getUserByEmail(first.email)).toEqual(first);
      });

      it("updateUser merges the given fields and moves the e-mail lookup", async () => {
        const user = await storedUser();
        const email = `new-${randomUUID()}@example.com`;
        const emailVerified = new Date("2025-01-02T03:04:05.678Z");
        const expected = { ...user, name: "Ada King", email, emailVerified };
        expect(await call.updateUser({ id: user.id, name: "Ada King", email, emailVerified })).toEqual(expected);
        expect(await call.getUser(user.id)).toEqual(expected);
        expect(await call.getUserByEmail(email)).toEqual(expected);
        expect(await call.getUserByEmail(user.email)).toBeNull();
      });

      it("updateUser can clear a field to null", async () => {
        const user = await storedUser();
        await call.updateUser({ id: user.id, image: null, emailVerified: null });
        expect(await call.getUser(user.id)).toEqual({ ...user, image: null, emailVerified: null });
      });

      it("updateUser rejects an unknown id and stores nothing", async () => {
        const id = randomUUID();
        await expect(async () => call.updateUser({ id, name: "Ghost" })).rejects.toThrow();
        expect(await call.getUser(id)).toBeNull();
        if (probe()) expect(await probe()?.exists("user", id)).toBe(false);
      });
    });

    describe("accounts", () => {
      it("linkAccount stores an account that getAccount and getUserByAccount find", async () => {
        const user = await storedUser();
        const account = newAccount(user.id);
        await call.linkAccount(account);
        expect(await call.getAccount(account.providerAccountId, account.provider)).toEqual(account);
        expect(await call.getUserByAccount(accountKey(account))).toEqual(user);
        const read = await call.getAccount(account.providerAccountId, account.provider);
        expect(typeof read?.expires_at).toBe("number");
      });

      it("reads back an account without tokens without inventing fields", async () => {
        const user = await storedUser();
        const account: AdapterAccount = {
          userId: user.id,
          type: "email",
          provider: "email",
          providerAccountId: user.email,
        };
        await call.linkAccount(account);
        expect(await call.getAccount(account.providerAccountId, "email")).toEqual(account);
      });

      it("accepts token fields beyond the standard ones and keeps the standard ones", async () => {
        const user = await storedUser();
        const account = newAccount(user.id);
        await call.linkAccount({ ...account, refresh_token_expires_in: 15_897_600 });
        expect(await call.getAccount(account.providerAccountId, account.provider)).toMatchObject(account);
      });

      it("tells accounts apart by provider", async () => {
        const user = await storedUser();
        const other = await storedUser();
        const providerAccountId = randomUUID();
        await call.linkAccount(newAccount(user.id, { provider: "acme", providerAccountId }));
        await call.linkAccount(newAccount(other.id, { provider: "globex", providerAccountId }));
        expect((await call.getUserByAccount({ provider: "acme", providerAccountId }))?.id).toBe(user.id);
        expect((await call.getUserByAccount({ provider: "globex", providerAccountId }))?.id).toBe(other.id);
        expect(await call.getAccount(providerAccountId, "initech")).toBeNull();
      });

      it("rejects linking the same provider account twice", async () => {
        const user = await storedUser();
        const other = await storedUser();
        const account = newAccount(user.id);
        await call.linkAccount(account);
        await expect(async () => call.linkAccount({ ...account, userId: other.id })).rejects.toThrow();
        expect((await call.getUserByAccount(accountKey(account)))?.id).toBe(user.id);
      });

      it("unlinkAccount removes the account and keeps the user", async () => {
        const user = await storedUser();
        const account = newAccount(user.id);
        const kept = newAccount(user.id, { provider: "globex" });
        await call.linkAccount(account);
        await call.linkAccount(kept);
        await call.unlinkAccount(accountKey(account));
        expect(await call.getAccount(account.providerAccountId, account.provider)).toBeNull();
        expect(await call.getUserByAccount(accountKey(account))).toBeNull();
        expect(await call.getUser(user.id)).toEqual(user);
        expect(await call.getAccount(kept.providerAccountId, kept.provider)).toEqual(kept);
        if (probe()) expect(await probe()?.exists("account", account.provider, account.providerAccountId)).toBe(false);
      });

      it("getAccountsByUserId lists the user's accounts and no one else's", async () => {
        const user = await storedUser();
        const other = await storedUser();
        const mine = [newAccount(user.id), newAccount(user.id, { provider: "globex" })];
        for (const account of mine) await call.linkAccount(account);
        await call.linkAccount(newAccount(other.id));
        const listed = await call.getAccountsByUserId(user.id);
        expect(listed.map((a) => a.providerAccountId).sort()).toEqual(mine.map((a) => a.providerAccountId).sort());
        expect(await call.getAccountsByUserId(randomUUID())).toEqual([]);
      });

      it("updateAccount writes the token fields, clears them with null and keeps the rest", async () => {
        const user = await storedUser();
        const account = newAccount(user.id);
        await call.linkAccount(account);
        const { provider, providerAccountId } = account;
        const updated = await call.updateAccount({
          provider,
          providerAccountId,
          access_token: "new",
          expires_at: 1_950_000_000,
        });
        expect(updated).toMatchObject({
          access_token: "new",
          expires_at: 1_950_000_000,
          refresh_token: "refresh-token",
        });
        await call.updateAccount({ provider, providerAccountId, access_token: null, refresh_token: null });
        const read = await call.getAccount(providerAccountId, provider);
        expect(read?.access_token ?? null).toBeNull();
        expect(read?.refresh_token ?? null).toBeNull();
        expect(read).toMatchObject({ userId: user.id, id_token: account.id_token, scope: account.scope });
        expect(await call.updateAccount({ provider, providerAccountId: randomUUID(), access_token: "x" })).toBeNull();
      });

      it("rule: updateAccount with an expected refresh token is a compare-and-set; of 30 concurrent writers one wins", async () => {
        const user = await storedUser();
        const account = newAccount(user.id);
        await call.linkAccount(account);
        const { provider, providerAccountId } = account;
        const results = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            call.updateAccount(
              { provider, providerAccountId, access_token: `access-${i}`, refresh_token: `rotated-${i}` },
              { refresh_token: "refresh-token" },
            ),
          ),
        );
        const winners = results.filter((r) => r !== null);
        expect(winners).toHaveLength(1);
        const read = await call.getAccount(providerAccountId, provider);
        expect(read?.refresh_token).toBe(winners[0]?.refresh_token);
        expect(read?.access_token).toBe(winners[0]?.access_token);
        // A writer holding the stale refresh token changes nothing.
        expect(
          await call.updateAccount(
            { provider, providerAccountId, refresh_token: "stale" },
            { refresh_token: "refresh-token" },
          ),
        ).toBeNull();
        expect((await call.getAccount(providerAccountId, provider))?.refresh_token).toBe(read?.refresh_token);
      });

      it("unlinkAccount of a missing account does not throw", async () => {
        await expect(
          Promise.resolve(call.unlinkAccount({ provider: "acme", providerAccountId: randomUUID() })),
        ).resolves.not.toThrow();
      });
    });

    describe("sessions", () => {
      it("createSession stores a session that getSessionAndUser returns with its user", async () => {
        const user = await storedUser();
        const session = { sessionToken: randomUUID(), userId: user.id, expires: later(3_600_000) };
        expect(await call.createSession(session)).toEqual(session);
        const found = await call.getSessionAndUser(session.sessionToken);
        expect(found).toEqual({ session, user });
        expect(found?.session.expires).toBeInstanceOf(Date);
      });

      it("returns null for a missing session", async () => {
        expect(await call.getSessionAndUser(randomUUID())).toBeNull();
      });

      it("treats an expired session as missing and removes it", async () => {
        const user = await storedUser();
        const sessionToken = randomUUID();
        await call.createSession({ sessionToken, userId: user.id, expires: new Date(Date.now() - 1000) });
        expect(await call.getSessionAndUser(sessionToken)).toBeNull();
        if (probe()) expect(await probe()?.exists("session", sessionToken)).toBe(false);
      });

      it("stops returning a session once its expiry passes", async () => {
        const user = await storedUser();
        const sessionToken = randomUUID();
        const expires = new Date(Date.now() + 1200);
        await call.createSession({ sessionToken, userId: user.id, expires });
        expect((await call.getSessionAndUser(sessionToken))?.session.expires).toEqual(expires);
        await new Promise((resolve) => setTimeout(resolve, expires.getTime() - Date.now() + 150));
        expect(await call.getSessionAndUser(sessionToken)).toBeNull();
      });

      it("updateSession moves the expiry and returns the session", async () => {
        const user = await storedUser();
        const session = { sessionToken: randomUUID(), userId: user.id, expires: later(60_000) };
        await call.createSession(session);
        const expires = later(7_200_000);
        expect(await call.updateSession({ sessionToken: session.sessionToken, expires })).toEqual({
          ...session,
          expires,
        });
        expect((await call.getSessionAndUser(session.sessionToken))?.session).toEqual({ ...session, expires });
      });

      it("updateSession of a missing session returns nothing and stores nothing", async () => {
        const sessionToken = randomUUID();
        expect(await call.updateSession({ sessionToken, expires: later(60_000) })).toBeFalsy();
        if (probe()) expect(await probe()?.exists("session", sessionToken)).toBe(false);
      });

      it("deleteSession removes one session and keeps the user's others", async () => {
        const user = await storedUser();
        const gone = { sessionToken: randomUUID(), userId: user.id, expires: later(60_000) };
        const kept = { sessionToken: randomUUID(), userId: user.id, expires: later(60_000) };
        await call.createSession(gone);
        await call.createSession(kept);
        await call.deleteSession(gone.sessionToken);
        expect(await call.getSessionAndUser(gone.sessionToken)).toBeNull();
        expect(await call.getSessionAndUser(kept.sessionToken)).toEqual({ session: kept, user });
        if (probe()) expect(await probe()?.exists("session", gone.sessionToken)).toBe(false);
        await expect(Promise.resolve(call.deleteSession(randomUUID()))).resolves.not.toThrow();
      });
    });

    describe("listUsers (Latchkey extension, the admin's user search)", () => {
      it("pages the users whose e-mail or name holds the query, case aside and literally, ordered by id after the cursor", async (ctx) => {
        if (typeof fixture?.adapter.listUsers !== "function") return ctx.skip();
        const tag = randomUUID().slice(0, 8);
        const made: AdapterUser[] = [];
        for (const [i, name] of [`Tag ${tag} one`, `100%_${tag}`, "no tag here"].entries())
          made.push(
            await storedUser({
              name,
              email: i === 2 ? `Found-${tag.toUpperCase()}-${randomUUID()}@example.com` : undefined,
            }),
          );
        const ids = made.map((u) => u.id).sort();
        const found = await call.listUsers({ query: tag, limit: 10 });
        expect(found.map((u) => u.id)).toEqual(ids);
        expect(found.find((u) => u.id === made[0]?.id)).toEqual(made[0]);
        const first = await call.listUsers({ query: tag.toUpperCase(), limit: 2 });
        expect(first.map((u) => u.id)).toEqual(ids.slice(0, 2));
        const rest = await call.listUsers({ query: tag, limit: 2, after: first.at(-1)?.id as string });
        expect(rest.map((u) => u.id)).toEqual(ids.slice(2));
        expect((await call.listUsers({ query: `%_${tag}`, limit: 10 })).map((u) => u.id)).toEqual([made[1]?.id]);
        expect(await call.listUsers({ query: `${tag}%one`, limit: 10 })).toEqual([]);
      });
    });

    describe("session metadata, listSessions, deleteSessions, listAccounts (Latchkey extension)", () => {
      const extended = () => typeof fixture?.adapter.listSessions === "function";
      const withMetadata = (userId: string, overrides: Partial<AdapterSession> = {}): AdapterSession => ({
        sessionToken: randomUUID(),
        userId,
        expires: later(3_600_000),
        createdAt: later(-60_000),
        lastSeenAt: later(-30_000),
        device: "Firefox on macOS",
        clientAddress: "2001:db8::1",
        ...overrides,
      });
      const byToken = (a: AdapterSession, b: AdapterSession) => a.sessionToken.localeCompare(b.sessionToken);

      it("createSession stores the metadata and listSessions returns it, for the user's live sessions only", async (ctx) => {
        if (!extended()) return ctx.skip();
        const user = await storedUser();
        const other = await storedUser();
        const { clientAddress: _none, ...withoutAddress } = withMetadata(user.id, { device: "Safari on iPhone" });
        const sessions = [withMetadata(user.id), withoutAddress];
        // The answer is Auth.js's shape (its adapter suite compares it exactly): token, user, expiry.
        for (const { sessionToken, userId, expires, ...metadata } of sessions) {
          expect(await call.createSession({ sessionToken, userId, expires, ...metadata })).toStrictEqual({
            sessionToken,
            userId,
            expires,
          });
        }
        await call.createSession(withMetadata(other.id));
        await call.createSession(withMetadata(user.id, { expires: new Date(Date.now() - 1000) }));
        const listed = await call.listSessions(user.id);
        expect([...listed].sort(byToken)).toEqual([...sessions].sort(byToken));
        for (const session of listed) {
          expect(session.createdAt).toBeInstanceOf(Date);
          expect(session.lastSeenAt).toBeInstanceOf(Date);
        }
        expect(await call.listSessions(randomUUID())).toEqual([]);
      });

      it("a session created without metadata is listed without it, and updateSession records lastSeenAt", async (ctx) => {
        if (!extended()) return ctx.skip();
        const user = await storedUser();
        const plain = { sessionToken: randomUUID(), userId: user.id, expires: later(60_000) };
        await call.createSession(plain);
        expect(await call.listSessions(user.id)).toEqual([plain]);
        const lastSeenAt = later(1_000);
        const expires = later(7_200_000);
        await call.updateSession({ sessionToken: plain.sessionToken, expires, lastSeenAt });
        expect(await call.listSessions(user.id)).toEqual([{ ...plain, expires, lastSeenAt }]);
      });

      it("deleteSessions deletes all of a user's sessions but the one kept, returns them, and spares other users", async (ctx) => {
        if (!extended() || !fixture?.adapter.deleteSessions) return ctx.skip();
        const user = await storedUser();
        const other = await storedUser();
        const sessions = Array.from({ length: 5 }, () => withMetadata(user.id));
        for (const session of sessions) await call.createSession(session);
        const theirs = withMetadata(other.id);
        await call.createSession(theirs);
        const [kept, ...doomed] = sessions as [AdapterSession, ...AdapterSession[]];
        const deleted = await call.deleteSessions(user.id, kept.sessionToken);
        expect([...deleted].sort(byToken)).toEqual([...doomed].sort(byToken));
        expect(await call.listSessions(user.id)).toEqual([kept]);
        for (const session of doomed) {
          expect(await call.getSessionAndUser(session.sessionToken)).toBeNull();
          if (probe()) expect(await probe()?.exists("session", session.sessionToken)).toBe(false);
        }
        expect(await call.listSessions(other.id)).toEqual([theirs]);
        expect(await call.deleteSessions(user.id)).toEqual([kept]);
        expect(await call.listSessions(user.id)).toEqual([]);
        expect(await call.deleteSessions(user.id)).toEqual([]);
      });

      it("deleteSessions racing 50 updateSession calls: no deleted session comes back", async (ctx) => {
        if (!extended() || !fixture?.adapter.deleteSessions) return ctx.skip();
        const user = await storedUser();
        const sessions = Array.from({ length: 10 }, () => withMetadata(user.id));
        for (const session of sessions) await call.createSession(session);
        const results = await atOnce(51, (i) =>
          i === 25
            ? call.deleteSessions(user.id)
            : call.updateSession({
                sessionToken: (sessions[i % sessions.length] as AdapterSession).sessionToken,
                expires: later(9_000_000 + i),
                lastSeenAt: later(i),
              }),
        );
        expect(results.filter((result) => result.status === "rejected")).toEqual([]);
        expect(await call.listSessions(user.id)).toEqual([]);
        for (const session of sessions) {
          expect(await call.getSessionAndUser(session.sessionToken)).toBeNull();
          if (probe()) expect(await probe()?.exists("session", session.sessionToken)).toBe(false);
        }
      });

      it("listAccounts returns the user's accounts only, as stored", async (ctx) => {
        if (!fixture?.adapter.listAccounts) return ctx.skip();
        const user = await storedUser();
        const other = await storedUser();
        const accounts = [newAccount(user.id), newAccount(user.id, { provider: "gïthub", type: "oauth" })];
        for (const account of accounts) await call.linkAccount(account);
        await call.linkAccount(newAccount(other.id));
        const byKey = (a: AdapterAccount, b: AdapterAccount) =>
          `${a.provider}${a.providerAccountId}`.localeCompare(`${b.provider}${b.providerAccountId}`);
        expect([...(await call.listAccounts(user.id))].sort(byKey)).toEqual([...accounts].sort(byKey));
        await call.unlinkAccount(accountKey(accounts[0] as AdapterAccount));
        expect(await call.listAccounts(user.id)).toEqual([accounts[1]]);
        expect(await call.listAccounts(randomUUID())).toEqual([]);
      });
    });

    describe("verification tokens", () => {
      it("useVerificationToken returns the stored token once, then null", async () => {
        const token = newToken();
        expect(await call.createVerificationToken(token)).toEqual(token);
        const used = await call.useVerificationToken(tokenKey(token));
        expect(used).toEqual(token);
        expect(used?.expires).toBeInstanceOf(Date);
        expect(await call.useVerificationToken(tokenKey(token))).toBeNull();
        if (probe()) expect(await probe()?.exists("verificationToken", token.identifier, token.token)).toBe(false);
      });

      it("needs both the identifier and the token, and a miss consumes nothing", async () => {
        const token = newToken();
        await call.createVerificationToken(token);
        expect(
          await call.useVerificationToken({ identifier: "someone-else@example.com", token: token.token }),
        ).toBeNull();
        expect(await call.useVerificationToken({ identifier: token.identifier, token: randomUUID() })).toBeNull();
        expect(await call.useVerificationToken(tokenKey(token))).toEqual(token);
      });

      it("keeps several tokens of one identifier apart", async () => {
        const first = newToken();
        const second = newToken({ identifier: first.identifier });
        await call.createVerificationToken(first);
        await call.createVerificationToken(second);
        expect(await call.useVerificationToken(tokenKey(first))).toEqual(first);
        expect(await call.useVerificationToken(tokenKey(second))).toEqual(second);
      });

      it("treats an expired token as missing and removes it", async () => {
        const token = newToken({ expires: new Date(Date.now() - 1000) });
        await call.createVerificationToken(token);
        expect(await call.useVerificationToken(tokenKey(token))).toBeNull();
        if (probe()) expect(await probe()?.exists("verificationToken", token.identifier, token.token)).toBe(false);
      });

      it("lets exactly one of 50 concurrent useVerificationToken calls win", async () => {
        const fifty = <T>(work: () => PromiseLike<T> | T) =>
          Promise.all(Array.from({ length: 50 }, () => Promise.resolve().then(work)));
        // Open every connection of a pool first, so that the calls below really overlap.
        await fifty(() => call.getUser(randomUUID()));
        for (let round = 0; round < 3; round++) {
          const token = newToken();
          await call.createVerificationToken(token);
          const winners = (await fifty(() => call.useVerificationToken(tokenKey(token)))).filter(
            (result) => result !== null,
          );
          expect(winners).toEqual([token]);
        }
      });
    });

    describe("authenticators", () => {
      it("createAuthenticator stores one that getAuthenticator returns unchanged", async () => {
        const user = await storedUser();
        const backedUp = newAuthenticator(user.id);
        const single = newAuthenticator(user.id, {
          credentialBackedUp: false,
          credentialDeviceType: "singleDevice",
          counter: 7,
          transports: null,
        });
        expect(await call.createAuthenticator(backedUp)).toEqual(backedUp);
        expect(await call.createAuthenticator(single)).toEqual(single);
        expect(await call.getAuthenticator(backedUp.credentialID)).toEqual(backedUp);
        const read = await call.getAuthenticator(single.credentialID);
        expect(read).toEqual(single);
        expect(read?.credentialBackedUp).toBe(false);
        expect(read?.counter).toBe(7);
      });

      it("returns null or an empty list when there is none", async () => {
        expect(await call.getAuthenticator(randomUUID())).toBeNull();
        expect(await call.listAuthenticatorsByUserId(randomUUID())).toEqual([]);
      });

      it("listAuthenticatorsByUserId returns the user's authenticators only", async () => {
        const user = await storedUser();
        const other = await storedUser();
        const mine = [newAuthenticator(user.id), newAuthenticator(user.id, { credentialBackedUp: false })];
        for (const authenticator of mine) await call.createAuthenticator(authenticator);
        await call.createAuthenticator(newAuthenticator(other.id));
        const byId = (a: AdapterAuthenticator, b: AdapterAuthenticator) => a.credentialID.localeCompare(b.credentialID);
        expect((await call.listAuthenticatorsByUserId(user.id)).sort(byId)).toEqual(mine.sort(byId));
      });

      it("updateAuthenticatorCounter stores the new counter, up to 2^32 - 1", async () => {
        const user = await storedUser();
        const authenticator = newAuthenticator(user.id, { counter: 5 });
        await call.createAuthenticator(authenticator);
        expect(await call.updateAuthenticatorCounter(authenticator.credentialID, 6)).toEqual({
          ...authenticator,
          counter: 6,
        });
        expect((await call.getAuthenticator(authenticator.credentialID))?.counter).toBe(6);
        await call.updateAuthenticatorCounter(authenticator.credentialID, 4_294_967_295);
        expect(await call.getAuthenticator(authenticator.credentialID)).toEqual({
          ...authenticator,
          counter: 4_294_967_295,
        });
      });

      it("updateAuthenticatorCounter rejects an unknown credential", async () => {
        const credentialID = randomUUID();
        await expect(async () => call.updateAuthenticatorCounter(credentialID, 1)).rejects.toThrow();
        if (probe()) expect(await probe()?.exists("authenticator", credentialID)).toBe(false);
      });

      it("deleteAuthenticator removes that one only, answers it once, and frees its credential id for a new record", async () => {
        const user = await storedUser();
        const [gone, kept] = [newAuthenticator(user.id), newAuthenticator(user.id)];
        for (const authenticator of [gone, kept] as AdapterAuthenticator[])
          await call.createAuthenticator(authenticator);
        const deleted = gone as AdapterAuthenticator;
        expect(await call.deleteAuthenticator(deleted.credentialID)).toEqual(deleted);
        expect(await call.deleteAuthenticator(deleted.credentialID)).toBeNull();
        expect(await call.getAuthenticator(deleted.credentialID)).toBeNull();
        expect(await call.listAuthenticatorsByUserId(user.id)).toEqual([kept]);
        if (probe()) expect(await probe()?.exists("authenticator", deleted.credentialID)).toBe(false);
        // The same passkey registered again (a new public key under the same id).
        const again = { ...deleted, credentialPublicKey: "pQECAyYgASFYIAgain", counter: 0 };
        expect(await call.createAuthenticator(again)).toEqual(again);
        expect(await call.getAuthenticator(deleted.credentialID)).toEqual(again);
      });
    });

    describe("deleteUser", () => {
      it("removes the user with its sessions, accounts and authenticators, and nothing else", async () => {
        const user = await storedUser();
        const other = await storedUser();
        const accounts = [newAccount(user.id), newAccount(user.id, { provider: "globex" })];
        const sessions = [randomUUID(), randomUUID()].map((sessionToken) => ({
          sessionToken,
          userId: user.id,
          expires: later(60_000),
        }));
        const authenticators = [newAuthenticator(user.id), newAuthenticator(user.id)];
        for (const account of accounts) await call.linkAccount(account);
        for (const session of sessions) await call.createSession(session);
        for (const authenticator of authenticators) await call.createAuthenticator(authenticator);
        const otherAccount = newAccount(other.id);
        const otherSession = { sessionToken: randomUUID(), userId: other.id, expires: later(60_000) };
        const otherAuthenticator = newAuthenticator(other.id);
        await call.linkAccount(otherAccount);
        await call.createSession(otherSession);
        await call.createAuthenticator(otherAuthenticator);

        await call.deleteUser(user.id);

        expect(await call.getUser(user.id)).toBeNull();
        expect(await call.getUserByEmail(user.email)).toBeNull();
        for (const account of accounts) {
          expect(await call.getAccount(account.providerAccountId, account.provider)).toBeNull();
          expect(await call.getUserByAccount(accountKey(account))).toBeNull();
        }
        for (const session of sessions) expect(await call.getSessionAndUser(session.sessionToken)).toBeNull();
        for (const authenticator of authenticators) {
          expect(await call.getAuthenticator(authenticator.credentialID)).toBeNull();
        }
        expect(await call.listAuthenticatorsByUserId(user.id)).toEqual([]);
        if (probe()) {
          expect(await probe()?.recordsOf(user.id)).toBe(0);
          expect(await probe()?.exists("session", sessions[0]?.sessionToken ?? "")).toBe(false);
        }

        expect(await call.getUser(other.id)).toEqual(other);
        expect(await call.getAccount(otherAccount.providerAccountId, otherAccount.provider)).toEqual(otherAccount);
        expect(await call.getSessionAndUser(otherSession.sessionToken)).toEqual({ session: otherSession, user: other });
        expect(await call.getAuthenticator(otherAuthenticator.credentialID)).toEqual(otherAuthenticator);
      });

      it("of a missing user does not throw", async () => {
        await expect(Promise.resolve(call.deleteUser(randomUUID()))).resolves.not.toThrow();
      });
    });

    /** Starts `work` and checks it answered with a promise (a synchronous throw fails here). */
    function started<T>(work: () => PromiseLike<T> | T): Promise<T> {
      let result: PromiseLike<T> | T | undefined;
      let thrown: unknown;
      try {
        result = work();
      } catch (e) {
        if (e instanceof AbsentMethod) throw e;
        thrown = e;
      }
      expect(thrown, "the adapter threw synchronously instead of rejecting").toBeUndefined();
      expect(typeof (result as PromiseLike<T> | undefined)?.then, "the adapter did not answer with a promise").toBe(
        "function",
      );
      return Promise.resolve(result as T);
    }
    /** Runs `work` `times` times at once and settles them all. */
    function atOnce<T>(times: number, work: (i: number) => PromiseLike<T> | T) {
      return Promise.allSettled(Array.from({ length: times }, (_, i) => Promise.resolve().then(() => work(i))));
    }

    describe("every failure is a rejection, never a synchronous throw", () => {
      it("rejects an unknown credential, an unknown user, a taken e-mail, account and credential id", async () => {
        const user = await storedUser();
        const account = newAccount(user.id);
        await call.linkAccount(account);
        const authenticator = newAuthenticator(user.id);
        await call.createAuthenticator(authenticator);
        await expect(started(() => call.updateAuthenticatorCounter(randomUUID(), 1))).rejects.toThrow();
        await expect(started(() => call.updateUser({ id: randomUUID(), name: "Ghost" }))).rejects.toThrow();
        await expect(started(() => call.createUser(newUser({ email: user.email })))).rejects.toThrow();
        await expect(started(() => call.linkAccount({ ...account }))).rejects.toThrow();
        await expect(started(() => call.createAuthenticator({ ...authenticator }))).rejects.toThrow();
      });

      it("answers every lookup with a promise", async () => {
        await expect(started(() => call.getUser(randomUUID()))).resolves.toBeNull();
        await expect(started(() => call.getSessionAndUser(randomUUID()))).resolves.toBeNull();
        await expect(started(() => call.getAuthenticator(randomUUID()))).resolves.toBeNull();
        await expect(started(() => call.useVerificationToken(tokenKey(newToken())))).resolves.toBeNull();
      });
    });

    describe("keys compare exactly: no case, accent, width or trailing-space folding", () => {
      // What a case- and accent-insensitive, pad-space collation (MySQL's and MariaDB's default)
      // would match: each variant must find nothing.
      const accented: Record<string, string> = { a: "à", c: "ç", e: "é", i: "í", o: "ó", u: "ú" };
      const variants = (value: string) =>
        [
          value.toUpperCase(),
          `${value} `,
          `${value}\t`,
          ` ${value}`,
          value.replace(/[aceiou]/, (letter) => accented[letter] ?? letter),
          // The first letter in its fullwidth form (U+FF41 for a).
          value.replace(/[a-z]/, (letter) => String.fromCharCode(letter.charCodeAt(0) + 0xfee0)),
        ].filter((variant) => variant !== value);

      it("getUserByAccount, getAccount: provider and providerAccountId", async () => {
        const user = await storedUser();
        const providerAccountId = `abc-001-${randomUUID().slice(0, 8)}`;
        const account = newAccount(user.id, { provider: "corp-oidc", providerAccountId });
        await call.linkAccount(account);
        expect((await call.getUserByAccount(accountKey(account)))?.id).toBe(user.id);
        for (const variant of variants(providerAccountId)) {
          expect(await call.getUserByAccount({ provider: "corp-oidc", providerAccountId: variant })).toBeNull();
          expect(await call.getAccount(variant, "corp-oidc")).toBeNull();
        }
        for (const variant of variants("corp-oidc")) {
          expect(await call.getUserByAccount({ provider: variant, providerAccountId })).toBeNull();
        }
      });

      it("getSessionAndUser, updateSession: session tokens", async () => {
        const user = await storedUser();
        const sessionToken = `a${randomUUID()}`;
        // computed once: `later` rounds to the current second, which may pass during the loop
        const expires = later(60_000);
        await call.createSession({ sessionToken, userId: user.id, expires });
        for (const variant of variants(sessionToken)) {
          expect(await call.getSessionAndUser(variant)).toBeNull();
          expect(await call.updateSession({ sessionToken: variant, expires: later(120_000) })).toBeFalsy();
        }
        expect((await call.getSessionAndUser(sessionToken))?.session.expires).toEqual(expires);
      });

      it("useVerificationToken: identifier and token; a miss consumes nothing", async () => {
        const token = newToken({ token: `a${randomUUID()}` });
        await call.createVerificationToken(token);
        for (const variant of variants(token.token)) {
          expect(await call.useVerificationToken({ identifier: token.identifier, token: variant })).toBeNull();
        }
        for (const variant of variants(token.identifier)) {
          expect(await call.useVerificationToken({ identifier: variant, token: token.token })).toBeNull();
        }
        expect(await call.useVerificationToken(tokenKey(token))).toEqual(token);
      });

      it("getUser, getUserByEmail, getAuthenticator: user ids, e-mail addresses, credential ids", async () => {
        const user = await storedUser({ id: `a${randomUUID()}`, email: `ada-${randomUUID()}@example.com` });
        const authenticator = newAuthenticator(user.id, { credentialID: `a${randomUUID()}` });
        await call.createAuthenticator(authenticator);
        for (const variant of variants(user.id)) expect(await call.getUser(variant)).toBeNull();
        for (const variant of variants(user.email)) expect(await call.getUserByEmail(variant)).toBeNull();
        for (const variant of variants(authenticator.credentialID)) {
          expect(await call.getAuthenticator(variant)).toBeNull();
        }
        // And a second user whose e-mail differs only by an accent or a trailing space is a different user.
        const lookalike = await storedUser({ email: user.email.replace(/a/, "à") });
        expect((await call.getUserByEmail(lookalike.email))?.id).toBe(lookalike.id);
        expect((await call.getUserByEmail(user.email))?.id).toBe(user.id);
      });
    });

    describe("races: a deleted record never comes back", () => {
      it("updateSession racing deleteSession, 100 sessions at once: every deleted session stays deleted", async () => {
        const user = await storedUser();
        const tokens = Array.from({ length: 100 }, () => randomUUID());
        for (const sessionToken of tokens) {
          await call.createSession({ sessionToken, userId: user.id, expires: later(60_000) });
        }
        const results = await atOnce(tokens.length * 3, (i) => {
          const sessionToken = tokens[Math.floor(i / 3)] as string;
          return i % 3 === 1
            ? call.deleteSession(sessionToken)
            : call.updateSession({ sessionToken, expires: later(3_600_000 + i) });
        });
        expect(results.filter((result) => result.status === "rejected")).toEqual([]);
        for (const sessionToken of tokens) {
          expect(await call.getSessionAndUser(sessionToken)).toBeNull();
          if (probe()) expect(await probe()?.exists("session", sessionToken)).toBe(false);
        }
      });

      it("updateUser racing deleteUser, 30 users at once: no user, e-mail or record comes back", async () => {
        const users = await Promise.all(Array.from({ length: 30 }, () => storedUser()));
        const newEmails = users.map((user) => `moved-${user.id}@example.com`);
        const results = await atOnce(users.length * 3, (i) => {
          const n = Math.floor(i / 3);
          const user = users[n] as AdapterUser;
          if (i % 3 === 1) return call.deleteUser(user.id);
          return call.updateUser(i % 3 === 0 ? { id: user.id, name: "Renamed" } : { id: user.id, email: newEmails[n] });
        });
        // updateUser may reject (the user is gone); deleteUser never does.
        for (const [i, result] of results.entries()) if (i % 3 === 1) expect(result.status).toBe("fulfilled");
        for (const [n, user] of users.entries()) {
          const email = newEmails[n] as string;
          expect(await call.getUser(user.id)).toBeNull();
          expect(await call.getUserByEmail(user.email)).toBeNull();
          expect(await call.getUserByEmail(email)).toBeNull();
          if (probe()) expect(await probe()?.recordsOf(user.id)).toBe(0);
          // Neither address is still held by the deleted user.
          await call.createUser(newUser({ email }));
          await call.createUser(newUser({ email: user.email }));
        }
      });

      it("updateAuthenticatorCounter: 50 at once all land on the record, and none revives a deleted one", async () => {
        const user = await storedUser();
        const authenticator = newAuthenticator(user.id, { counter: 1 });
        await call.createAuthenticator(authenticator);
        const counters = Array.from({ length: 50 }, (_, i) => 1000 + i);
        const results = await atOnce(counters.length, (i) =>
          call.updateAuthenticatorCounter(authenticator.credentialID, counters[i] as number),
        );
        expect(results.filter((result) => result.status === "rejected")).toEqual([]);
        const stored = await call.getAuthenticator(authenticator.credentialID);
        expect(counters).toContain(stored?.counter);
        expect(stored).toEqual({ ...authenticator, counter: stored?.counter });

        const doomed = await storedUser();
        const doomedAuthenticator = newAuthenticator(doomed.id);
        await call.createAuthenticator(doomedAuthenticator);
        const raced = await atOnce(31, (i) =>
          i === 15
            ? call.deleteUser(doomed.id)
            : call.updateAuthenticatorCounter(doomedAuthenticator.credentialID, 2000 + i),
        );
        expect(raced[15]?.status).toBe("fulfilled");
        expect(await call.getAuthenticator(doomedAuthenticator.credentialID)).toBeNull();
        expect(await call.listAuthenticatorsByUserId(doomed.id)).toEqual([]);
        if (probe()) expect(await probe()?.exists("authenticator", doomedAuthenticator.credentialID)).toBe(false);
      });
    });

    describe("storage stays bounded by what is live", () => {
      it("creating a verification token sweeps the expired ones and keeps the live ones", async (ctx) => {
        if (!probe()) return ctx.skip();
        const live = [newToken(), newToken({ expires: later(86_400_000) })];
        for (const token of live) await call.createVerificationToken(token);
        // As an anonymous WebAuthn options request leaves them: one identifier, many tokens.
        const expired = Array.from({ length: 40 }, (_, i) =>
          newToken({
            identifier: i % 2 ? "webauthn-challenge:passkey" : `ädà-${i}@example.com`,
            expires: new Date(Date.now() - 1000 - i * 60_000),
          }),
        );
        for (const token of expired) await call.createVerificationToken(token);
        const fresh = newToken();
        await call.createVerificationToken(fresh);
        for (const token of expired) {
          expect(await probe()?.exists("verificationToken", token.identifier, token.token)).toBe(false);
        }
        for (const token of [...live, fresh]) expect(await call.useVerificationToken(tokenKey(token))).toEqual(token);
      });
    });

    describe("transaction (when the adapter has one)", () => {
      it("commits the writes of work that succeeds", async (ctx) => {
        const transaction = fixture?.adapter.transaction;
        if (!transaction) return ctx.skip();
        const user = newUser();
        const account = newAccount(user.id);
        const result = await fixture?.adapter.transaction?.(async (trx) => {
          await trx.createUser?.(user);
          await trx.linkAccount?.(account);
          return "done";
        });
        expect(result).toBe("done");
        expect(await call.getUserByAccount(accountKey(account))).toEqual(user);
      });

      it("rolls back every write of work that throws", async (ctx) => {
        if (!fixture?.adapter.transaction) return ctx.skip();
        const user = newUser();
        const failure = new Error("work failed");
        await expect(
          fixture.adapter.transaction(async (trx) => {
            await trx.createUser?.(user);
            expect(await trx.getUser?.(user.id)).toEqual(user);
            throw failure;
          }),
        ).rejects.toBe(failure);
        expect(await call.getUser(user.id)).toBeNull();
        if (probe()) expect(await probe()?.exists("user", user.id)).toBe(false);
      });
    });
  });
}
