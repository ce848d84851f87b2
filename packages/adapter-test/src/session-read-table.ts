/**
 * The session-read table (issue 35.1): every entry point that reads "who is signed in" answers
 * each failure the same way. Rows are entry points (the session action, each framework's
 * `getSession`/`auth()`, `requireAuth`, the sessions API, the account functions, the access
 * token helper), each given as a {@link SessionReadDriver}; columns are the cases of
 * {@link SESSION_READ_COLUMNS}; each column has one expected answer ({@link SESSION_READ_EXPECTED}),
 * the same in every row. Database sessions over the store the caller makes (a real PostgreSQL or
 * Redis), with and without `session.cache`.
 * @module session-read-table
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { AuthConfig } from "@latchkey/core";
import { MemoryPasswordStore } from "@latchkey/core/accounts";
import type { Adapter } from "@latchkey/core/adapters";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type FrameworkDriver, type FrameworkTable, raw } from "./framework.js";

/** The cases every entry point is read under, in the table's order. */
export const SESSION_READ_COLUMNS = [
  "live",
  "no secret",
  "untrusted host",
  "callback returns a non-object",
  "garbage cookie",
  "store down",
  "expiry equal to now",
  "revoked",
] as const;

/** One case of the table. */
export type SessionReadColumn = (typeof SESSION_READ_COLUMNS)[number];

/** What a column expects of every row. */
export interface SessionReadExpectation {
  /** Whether the entry point answers with a session. */
  signedIn: boolean;
  /** Whether it clears the session cookie (only an entry point that can write cookies does). */
  cleared: boolean;
  /** The error it logs (matched against `"<type>: <message>"`), or null: none. */
  logged: RegExp | null;
}

/**
 * The one answer per column (the README's table, "Reading the session"). The session action's
 * form of "no session" for a configuration error and a store that fails is a 500 with no session
 * in it (its client keeps what it knew); every other entry point answers null (or its own
 * "signed out").
 */
export const SESSION_READ_EXPECTED: Record<SessionReadColumn, SessionReadExpectation> = {
  live: { signedIn: true, cleared: false, logged: null },
  "no secret": { signedIn: false, cleared: false, logged: /^MissingSecret: / },
  "untrusted host": { signedIn: false, cleared: false, logged: /^UntrustedHost: .*AUTH_URL/ },
  "callback returns a non-object": {
    signedIn: false,
    cleared: false,
    logged: /^InvalidConfiguration: The `session` callback/,
  },
  "garbage cookie": { signedIn: false, cleared: true, logged: null },
  "store down": { signedIn: false, cleared: false, logged: /^SessionTokenError: / },
  "expiry equal to now": { signedIn: false, cleared: true, logged: null },
  revoked: { signedIn: false, cleared: true, logged: null },
};

/** The request a driver makes: to `http://<host>`, with `cookie` as its `Cookie` header. */
export interface SessionReadRequest {
  host: string;
  cookie: string;
}

/** What a driver saw: whether the entry point answered with a session, and the `Set-Cookie` values it sent. */
export interface SessionReadOutcome {
  signedIn: boolean;
  setCookie: string[];
}

/** How to read through one entry point. */
export interface SessionReadDriver {
  /** The row's title: the entry point (`"express getSession"`). */
  name: string;
  /** Whether the entry point can write cookies: it then clears a session cookie that names no live session. */
  writesCookies: boolean;
  /**
   * Reads once through the entry point, configured with `config` (the application's own object,
   * as given), for a request to `http://<host>` carrying `cookie`. It must not throw.
   */
  read(config: AuthConfig, request: SessionReadRequest): Promise<SessionReadOutcome>;
}

/** A store the table reads sessions from. */
export interface SessionReadStore {
  adapter: Adapter;
  /** Makes the store unreachable (closes its connections): every later call fails. */
  breakStore(): Promise<void>;
  /** Removes what the store holds and closes it (called once, a broken store included). */
  teardown(): Promise<void>;
}

/** How the table runs. */
export interface SessionReadTableOptions {
  /** A fresh store: one for the table, and one more for each row's "store down" case. */
  store: () => Promise<SessionReadStore>;
  /**
   * The providers of every case's configuration: an OAuth provider among them (the access token
   * helper asks for its tokens), from the same `@latchkey/core` the drivers use.
   */
  providers: NonNullable<AuthConfig["providers"]>;
  /** Ends every session of a user (`revokeUserSessions` of the same `@latchkey/core` the drivers use). */
  revoke: (config: AuthConfig, userId: string) => Promise<unknown>;
  /** Skips the table (the store's server is not running: `serviceAvailable`). */
  skip?: boolean;
  /**
   * Also reads JWT sessions (with `session.revocation`), sealed by `seal` (`encode` of the same
   * `@latchkey/core`: the claims, the secret, the cookie's name as salt, the seconds to `exp`).
   * Their "store down" case does not apply: a JWT session is read without the store.
   */
  jwt?: { seal(claims: Record<string, unknown>, secret: string, salt: string, maxAge: number): Promise<string> };
  /**
   * Columns that cannot be produced through these entry points, each with why (shown in the
   * skipped test's title): SvelteKit's contract application has adapter-node's `ORIGIN`, so no
   * request's `Host` names its origin.
   */
  notApplicable?: Partial<Record<SessionReadColumn, string>>;
}

/** The session cookie's name over http. */
const COOKIE = "authjs.session-token";
const TRUSTED_HOST = "localhost:3000";
const UNTRUSTED_HOST = "app.example";

/** A `Set-Cookie` value that deletes the session cookie. */
function clears(setCookie: string): boolean {
  return setCookie.startsWith(`${COOKIE}=;`) && /;\s*Max-Age=0(;|$)/i.test(setCookie);
}

/** An error as the table compares it: `"<type>: <message>"`. */
function line(e: unknown): string {
  const error = e as { type?: string; name?: string; message?: string };
  return `${error.type ?? error.name}: ${error.message}`;
}

interface Case {
  config: AuthConfig;
  request: SessionReadRequest;
  errors: string[];
}

/**
 * Defines the table's tests: for each driver (a row) and each column, one read through the
 * entry point, compared with {@link SESSION_READ_EXPECTED}; once with database sessions read from
 * the store, once with `session.cache`. Each case signs in a user of its own; "revoked" reads the
 * session first (warming the cache) and revokes it with `revokeUserSessions`; "expiry equal to
 * now" freezes the clock at the session's expiry; "store down" reads from a store the table
 * broke; "no secret" needs `AUTH_SECRET` unset in the environment.
 *
 * @example
 * ```ts
 * sessionReadTable("core", [actionDriver, getSessionDriver], {
 *   store: postgresSessionStore,
 *   providers: [GitHub({ clientId: "id", clientSecret: "secret" })],
 *   revoke: revokeUserSessions,
 *   skip: !postgresUp,
 * })
 * ```
 */
export function sessionReadTable(
  title: string,
  drivers: readonly SessionReadDriver[],
  options: SessionReadTableOptions,
): void {
  describe.skipIf(!!options.skip)(`the session-read table: ${title}`, () => {
    let store: SessionReadStore;
    const broken: SessionReadStore[] = [];
    const secret = randomBytes(32).toString("base64url");
    beforeAll(async () => {
      for (const name of ["AUTH_SECRET", "NEXTAUTH_SECRET", "AUTH_URL", "NEXTAUTH_URL", "AUTH_TRUST_HOST"])
        if (process.env[name] !== undefined) throw new Error(`The session-read table needs ${name} unset`);
      store = await options.store();
    });
    afterAll(async () => {
      await Promise.all([store, ...broken].filter(Boolean).map((s) => s.teardown()));
    });

    /** A user with a live database session of `expires` in `adapter`, and the case's configuration. */
    /**
     * A user with a live session in `adapter` (a stored one, or under `jwt` a sealed token of
     * `maxAge` seconds), and the case's configuration.
     */
    async function caseOf(column: SessionReadColumn, adapter: Adapter, mode: Mode, expires?: Date, maxAge = 3600) {
      const id = randomUUID();
      await adapter.createUser?.({ id, email: `${id}@example.com`, emailVerified: null, name: "Ada" });
      let cookie: string;
      if (mode.strategy === "jwt" && options.jwt) {
        const claims = { sub: id, name: "Ada", email: `${id}@example.com`, sid: randomUUID() };
        const at = Math.floor(Date.now() / 1000);
        cookie = `${COOKIE}=${await options.jwt.seal({ ...claims, auth_time: at }, secret, COOKIE, maxAge)}`;
      } else {
        const token = randomBytes(32).toString("hex");
        await adapter.createSession?.({
          sessionToken: token,
          userId: id,
          expires: expires ?? new Date(Date.now() + 3_600_000),
        });
        cookie = `${COOKIE}=${token}`;
      }
      const errors: string[] = [];
      const config: AuthConfig = {
        secret,
        adapter,
        basePath: "/auth",
        session:
          mode.strategy === "jwt"
            ? { strategy: "jwt", revocation: true }
            : mode.cache
              ? { strategy: "database", cache: true }
              : { strategy: "database" },
        providers: options.providers,
        // The user's id in the session, as applications name it (the framework rows read it back).
        callbacks: {
          session: ({ session, user, token }) => ({
            ...session,
            user: { ...session.user, id: user?.id ?? token?.sub },
          }),
        },
        logger: { error: (e) => void errors.push(line(e)), warn() {}, debug() {} },
      };
      let host = TRUSTED_HOST;
      if (column === "no secret") delete config.secret;
      if (column === "untrusted host") {
        config.trustHost = false;
        host = UNTRUSTED_HOST;
      }
      if (column === "callback returns a non-object") config.callbacks = { session: () => "signed in" as never };
      if (column === "garbage cookie") cookie = `${COOKIE}=${randomBytes(32).toString("hex")}`;
      return { config, request: { host, cookie }, errors, userId: id } satisfies Case & { userId: string };
    }

    async function read(driver: SessionReadDriver, c: Case): Promise<SessionReadOutcome> {
      try {
        return await driver.read(c.config, c.request);
      } catch (e) {
        throw new Error(`${driver.name} threw instead of answering: ${line(e)}`);
      }
    }

    function check(driver: SessionReadDriver, column: SessionReadColumn, c: Case, outcome: SessionReadOutcome) {
      const expected = SESSION_READ_EXPECTED[column];
      const answer = {
        signedIn: outcome.signedIn,
        cleared: outcome.setCookie.some(clears),
        logged: c.errors,
      };
      expect(answer, `${driver.name}, ${column}`).toEqual({
        signedIn: expected.signedIn,
        cleared: expected.cleared && driver.writesCookies,
        logged: expected.logged ? [expect.stringMatching(expected.logged)] : [],
      });
    }

    const modes: Mode[] = [
      { title: "read from the store", strategy: "database", cache: false },
      { title: "with session.cache", strategy: "database", cache: true },
      ...(options.jwt
        ? [{ title: "JWT sessions with session.revocation", strategy: "jwt" as const, cache: false }]
        : []),
    ];
    for (const mode of modes) {
      describe(mode.title, () => {
        for (const driver of drivers) {
          describe(driver.name, () => {
            for (const column of SESSION_READ_COLUMNS) {
              const reason =
                options.notApplicable?.[column] ??
                (mode.strategy === "jwt" && column === "store down"
                  ? "a JWT session is read without the store"
                  : undefined);
              if (reason) {
                it.skip(`${column}: not applicable (${reason})`, () => {});
                continue;
              }
              it(`${column}: ${describeExpected(column)}`, async () => {
                if (column === "store down") {
                  const down = await options.store();
                  broken.push(down);
                  const c = await caseOf(column, down.adapter, mode);
                  await down.breakStore();
                  check(driver, column, c, await read(driver, c));
                  return;
                }
                if (column === "expiry equal to now") {
                  // A stored session's expiry is its `expires`; a JWT's is its `exp` plus the 15 s tolerance.
                  const sealedAt = Math.ceil(Date.now() / 1000) * 1000;
                  const at = new Date(sealedAt + 60_000);
                  vi.useFakeTimers({ toFake: ["Date"], now: sealedAt });
                  try {
                    const c = await caseOf(column, store.adapter, mode, at, 45);
                    vi.setSystemTime(at);
                    check(driver, column, c, await read(driver, c));
                  } finally {
                    vi.useRealTimers();
                  }
                  return;
                }
                const c = await caseOf(column, store.adapter, mode);
                if (column === "revoked") {
                  // Read first (and cached, with session.cache): the revocation must end what was read.
                  expect(
                    (await read(driver, c)).signedIn,
                    `${driver.name} reads the session before it is revoked`,
                  ).toBe(true);
                  await options.revoke(c.config, c.userId);
                }
                check(driver, column, c, await read(driver, c));
              });
            }
          });
        }
      });
    }
  });
}

/** How a pass of the table stores its sessions. */
interface Mode {
  title: string;
  strategy: "database" | "jwt";
  cache: boolean;
}

/** A column's expectation in words, for the test's title. */
function describeExpected(column: SessionReadColumn): string {
  const { signedIn, cleared, logged } = SESSION_READ_EXPECTED[column];
  const parts = [signedIn ? "the session" : "no session"];
  if (cleared) parts.push("the cookie cleared where the entry point can write cookies");
  parts.push(logged ? "the error logged" : "nothing logged");
  return parts.join(", ");
}

/** How a framework package's rows of the table read. */
export interface FrameworkReadOptions extends SessionReadTableOptions {
  /**
   * Whether the package's session read (`GET /contract/session`: `getSession`, `auth()`,
   * `event.locals.auth()`) can write cookies: Hono's `getSession(c)`, SvelteKit's
   * `locals.auth()` and Next.js's `auth()` in a Route Handler can; Express's `getSession(req)` and
   * Fastify's `getSession(request)` have no response to write on.
   */
  sessionReadWritesCookies: boolean;
}

/**
 * The table's rows of a framework package, for `runFrameworkContract(driver, [table])`: its
 * session read (`GET /contract/session`) and its guard (`GET /contract/guarded`, when the driver
 * has one, asked for JSON), each read through an application the driver starts with the case's
 * configuration, over HTTP with the case's `Host` and `Cookie`.
 *
 * @example
 * ```ts
 * runFrameworkContract(driver, [frameworkSessionReads({ store: postgresSessionStore, providers, revoke, sessionReadWritesCookies: false })])
 * ```
 */
export function frameworkSessionReads(options: FrameworkReadOptions): FrameworkTable {
  return (driver) => sessionReadTable(driver.name, frameworkRows(driver, options), options);
}

function frameworkRows(driver: FrameworkDriver, options: FrameworkReadOptions): SessionReadDriver[] {
  /** Reads `path`; a reader route answers `{ id }`, the session action the session (`signedIn` tells). */
  const through =
    (path: string, signedIn = (body: unknown) => typeof (body as { id?: unknown } | null)?.id === "string") =>
    async (config: AuthConfig, request: SessionReadRequest) => {
      const server = await driver.start(config, {
        mount: driver.defaultMount,
        accounts: {
          passwords: new MemoryPasswordStore(),
          urls: { verify: "/verify", reset: "/reset", signIn: "/signin", signUp: "/signup" },
          breached: false,
          send: async () => {},
        },
      });
      try {
        const url = new URL(path, server.origin);
        const answer = await raw(url.href, {
          headers: { host: request.host, cookie: request.cookie, accept: "application/json" },
        });
        const setCookie = answer.headers["set-cookie"] ?? [];
        return {
          signedIn: answer.status === 200 && signedIn(JSON.parse(answer.body) as unknown),
          setCookie: [setCookie].flat(),
        };
      } finally {
        await server.close();
      }
    };
  const rows: SessionReadDriver[] = [
    {
      name: `${driver.name}'s session read (getSession / auth())`,
      writesCookies: options.sessionReadWritesCookies,
      read: through("/contract/session"),
    },
    // The package's other readers (Hono's session(), Next.js's auth(handler)): the same read.
    ...(driver.readers ?? []).map((path) => ({
      name: `${driver.name}'s session read at ${path}`,
      writesCookies: options.sessionReadWritesCookies,
      read: through(path),
    })),
    {
      name: `${driver.name}'s session action (GET <basePath>/session)`,
      writesCookies: true,
      read: through(
        `${driver.defaultMount}/session`,
        (body) => (body as { user?: unknown } | null)?.user !== undefined,
      ),
    },
  ];
  if (driver.guard)
    rows.push({
      name: `${driver.name}'s guard (requireAuth)`,
      writesCookies: true,
      read: through("/contract/guarded"),
    });
  return rows;
}
