// The session-read table (issue 35.1) for @latchkey/core's own entry points: the session action,
// `getSession`, the `requireAuth` decision, the sessions API, the account functions and the access
// token helper, each answering every column of the table as the one session read decides, over a
// real PostgreSQL database (a fresh one, closed, for "store down").

import { randomBytes, randomUUID } from "node:crypto";
import type { AuthConfig as TableConfig } from "@latchkey/core";
import { describe, expect, it } from "vitest";
import { serviceAvailable } from "../../adapter-test/src/services.js";
import { type SessionReadDriver, sessionReadTable } from "../../adapter-test/src/session-read-table.js";
import { getAccessToken, RefreshTokenRevoked } from "../src/access-token.js";
import { changePassword, MemoryPasswordStore } from "../src/accounts.js";
import { Auth, getSession } from "../src/index.js";
import { guard, toResponse } from "../src/internal.js";
import { encode } from "../src/jwt.js";
import GitHub from "../src/providers/github.js";
import { getCsrfToken, listAccounts, listSessions, revokeUserSessions } from "../src/sessions.js";
import type { AuthConfig } from "../src/types.js";
import { postgresSessionStore } from "./support/session-read-store.js";

const requestOf = (host: string, cookie: string, path = "/private") =>
  new Request(`http://${host}${path}`, { headers: { cookie } });

/** The table's configuration (typed by the built package) as this package's source types it: the same object. */
const own = (config: TableConfig) => config as unknown as AuthConfig;

const drivers: SessionReadDriver[] = [
  {
    name: "the session action (GET /auth/session)",
    writesCookies: true,
    async read(table, { host, cookie }) {
      const config = own(table);
      const response = await Auth(requestOf(host, cookie, "/auth/session"), config);
      const body = response.status === 200 ? await response.json() : null;
      return { signedIn: !!body?.user, setCookie: response.headers.getSetCookie() };
    },
  },
  {
    name: "getSession",
    writesCookies: false,
    async read(table, { host, cookie }) {
      const config = own(table);
      return { signedIn: !!(await getSession(requestOf(host, cookie), config))?.user, setCookie: [] };
    },
  },
  {
    name: "the requireAuth decision (guard)",
    writesCookies: true,
    async read(table, { host, cookie }) {
      const config = own(table);
      const where = { protocol: "http:", host, cookieHeader: cookie, accept: "application/json", url: "/private" };
      const result = await guard(config)(where);
      if (result.session) return { signedIn: true, setCookie: [] };
      return { signedIn: false, setCookie: toResponse(result.response).headers.getSetCookie() };
    },
  },
  {
    name: "the sessions API (listSessions; listAccounts under JWT)",
    writesCookies: false,
    async read(table, { host, cookie }) {
      const config = own(table);
      // JWT sessions are not stored (listSessions refuses them): the user's linked accounts.
      const list = config.session?.strategy === "jwt" ? listAccounts : listSessions;
      return { signedIn: (await list(requestOf(host, cookie), config)) !== null, setCookie: [] };
    },
  },
  {
    name: "the account functions (changePassword)",
    writesCookies: false,
    async read(table, { host, cookie }) {
      const config = own(table);
      // The form's CSRF token, as a page would have it (none where the configuration cannot give one).
      let csrf = { token: "", cookie };
      try {
        const answer = await getCsrfToken(requestOf(host, cookie), config);
        csrf = { token: answer.token, cookie: [cookie, ...answer.setCookie.map((c) => c.split(";")[0])].join("; ") };
      } catch {}
      const result = await changePassword(
        requestOf(host, csrf.cookie),
        config,
        {
          passwords: new MemoryPasswordStore(),
          urls: {
            verify: "/account/verify",
            reset: "/account/reset",
            signIn: "/auth/signin",
            signUp: "/account/signup",
          },
          breached: false,
          send: async () => {},
        },
        // An empty new password is refused after the session is read: nothing changes either way.
        { csrfToken: csrf.token, newPassword: "" },
      );
      return { signedIn: result.ok || result.error !== "signed-out", setCookie: [] };
    },
  },
  {
    name: "the access token helper (getAccessToken)",
    writesCookies: false,
    async read(table, { host, cookie }) {
      const config = own(table);
      try {
        return {
          signedIn: (await getAccessToken(requestOf(host, cookie), config, { provider: "github" })) !== null,
          setCookie: [],
        };
      } catch (e) {
        // Signed in, with no GitHub account (database) or no GitHub tokens in the session (JWT).
        const reason = e instanceof RefreshTokenRevoked ? (e.cause as { reason?: string })?.reason : undefined;
        if (reason === "no-account" || reason === "no-tokens") return { signedIn: true, setCookie: [] };
        throw e;
      }
    },
  },
];

sessionReadTable("@latchkey/core", drivers, {
  store: postgresSessionStore,
  providers: [GitHub({ clientId: "table-client", clientSecret: "table-secret" })],
  revoke: (config, userId) => revokeUserSessions(own(config), userId),
  jwt: { seal: (token, secret, salt, maxAge) => encode({ token, secret, salt, maxAge }) },
  skip: !(await serviceAvailable("PostgreSQL", 5432)),
});

describe.skipIf(!(await serviceAvailable("PostgreSQL", 5432)))("attack: the one read under load", () => {
  it("40 reads at once through every core entry point, live, garbage and revoked cookies interleaved, with session.cache: each gets its own answer", async () => {
    const store = await postgresSessionStore();
    try {
      const errors: string[] = [];
      const config: TableConfig = {
        secret: randomBytes(32).toString("base64url"),
        adapter: store.adapter,
        session: { strategy: "database", cache: true },
        providers: [GitHub({ clientId: "table-client", clientSecret: "table-secret" })],
        logger: { error: (e) => void errors.push(`${e.name}: ${e.message}`), warn() {}, debug() {} },
      };
      const sessionOf = async (userId: string) => {
        await store.adapter.createUser?.({ id: userId, email: `${userId}@example.com`, emailVerified: null });
        const token = randomBytes(32).toString("hex");
        await store.adapter.createSession?.({ sessionToken: token, userId, expires: new Date(Date.now() + 3_600_000) });
        return `authjs.session-token=${token}`;
      };
      const live = await sessionOf(randomUUID());
      const revokedUser = randomUUID();
      const revoked = await sessionOf(revokedUser);
      // Read once (cached), then revoked: the cache must not serve it afterwards.
      expect((await drivers[1]?.read(config, { host: "localhost:3000", cookie: revoked }))?.signedIn).toBe(true);
      await revokeUserSessions(own(config), revokedUser);
      const cases = Array.from({ length: 40 }, (_, i) => {
        const kind = (["live", "garbage", "revoked"] as const)[i % 3] ?? "live";
        const cookie =
          kind === "live"
            ? live
            : kind === "revoked"
              ? revoked
              : `authjs.session-token=${randomBytes(32).toString("hex")}`;
        const driver = drivers[i % drivers.length];
        return { kind, driver, cookie };
      });
      const answers = await Promise.all(
        cases.map(async ({ kind, driver, cookie }) => ({
          kind,
          name: driver?.name,
          signedIn: (await driver?.read(config, { host: "localhost:3000", cookie }))?.signedIn,
        })),
      );
      for (const answer of answers)
        expect(answer, answer.name).toEqual({ ...answer, signedIn: answer.kind === "live" });
      expect(errors).toEqual([]);
    } finally {
      await store.teardown();
    }
  });
});
