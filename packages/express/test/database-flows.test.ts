/**
 * Database-strategy flows over Express with the SQL adapter on PostgreSQL: an OpenID Connect
 * sign-in (real `oidc-provider`) creates the user, the account and the session in the database;
 * sign-out deletes the session row. Credentials stay on JWT sessions even with the adapter.
 */

import { type AuthConfig, ExpressAuth } from "@latchkey/express";
import Credentials from "@latchkey/express/providers/credentials";
import OIDC from "@latchkey/express/providers/generic-oidc";
import { SqlAdapter } from "@latchkey/sql-adapter";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceAvailable } from "../../adapter-test/src/services.js";
import { Browser } from "../../core/test/oauth/support/browser.js";
import { SECRET, sessionOf, signInThrough } from "../../core/test/oauth/support/flow.js";
import { startOP, type TestOP } from "../../core/test/oauth/support/op.js";
import { listen } from "./helpers.js";
import { type Db, type ScratchDatabase, scratchPostgres } from "./stores.js";

let up = false;
let database: ScratchDatabase;
let db: Db;
let op: TestOP;
let closeApp: (() => Promise<void>) | undefined;
let app = "";

const count = (table: string) => database.count(table);

beforeAll(async () => {
  up = await serviceAvailable("PostgreSQL", 5432);
  if (!up) return;
  database = await scratchPostgres("dbflow", 5);
  db = database.db;

  const adapter = SqlAdapter(db as never);
  const quiet = { error() {}, warn() {}, debug() {} };
  const databaseSessions: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    logger: quiet,
    providers: [
      () =>
        OIDC({ id: "op", name: "Test OP", issuer: op.issuer, clientId: "latchkey", clientSecret: "latchkey-secret" }),
    ],
  };
  const jwtWithAdapter: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy: "jwt" },
    logger: quiet,
    providers: [
      Credentials({
        credentials: { username: {}, password: {} },
        authorize: (c) => (c.username === "ada" && c.password === "pw" ? { id: "ada", name: "Ada" } : null),
      }),
    ],
  };
  const application = express();
  application.use("/db/auth", ExpressAuth({ ...databaseSessions, basePath: "/db/auth" }));
  application.use("/jwt/auth", ExpressAuth({ ...jwtWithAdapter, basePath: "/jwt/auth" }));
  ({ url: app, close: closeApp } = await listen(application, "127.0.0.1"));
  op = await startOP([
    { client_id: "latchkey", client_secret: "latchkey-secret", redirect_uris: [`${app}/db/auth/callback/op`] },
  ]);
});

afterAll(async () => {
  if (!up) return;
  await op?.close();
  await closeApp?.();
  await database?.close();
});

describe("database sessions over Express on PostgreSQL", () => {
  it("an OIDC sign-in creates user, account and session rows; the cookie holds only the session token; sign-out deletes the row", async (t) => {
    if (!up) return t.skip();
    const browser = new Browser();
    const callback = await signInThrough(browser, app, "op", { basePath: "/db/auth" });
    expect(callback.status).toBe(302);
    expect(await count("users")).toBe(1);
    expect(await count("accounts")).toBe(1);
    expect(await count("sessions")).toBe(1);
    const account = await db.selectFrom("accounts").selectAll().executeTakeFirstOrThrow();
    expect(account).toMatchObject({ provider: "op", providerAccountId: "alice", type: "oidc" });
    const cookie = callback.headers.getSetCookie().find((c) => c.startsWith("authjs.session-token="));
    const token = cookie?.split(";")[0]?.split("=")[1];
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    const row = await db.selectFrom("sessions").selectAll().executeTakeFirstOrThrow();
    expect(row.sessionToken).toBe(token);
    expect((await sessionOf(browser, app, "/db/auth"))?.user?.email).toBe("alice@example.com");

    const { csrfToken } = (await (await browser.get(`${app}/db/auth/csrf`)).json()) as { csrfToken: string };
    const signout = await browser.post(`${app}/db/auth/signout`, { csrfToken });
    expect(signout.status).toBe(302);
    expect(await count("sessions")).toBe(0);
    expect(await sessionOf(browser, app, "/db/auth")).toBeNull();
    // signing in again finds the same user and account
    await signInThrough(browser, app, "op", { basePath: "/db/auth" });
    expect(await count("users")).toBe(1);
    expect(await count("accounts")).toBe(1);
    expect(await count("sessions")).toBe(1);
  });

  it("credentials sign-in stays on a JWT session even with the adapter: no session row", async (t) => {
    if (!up) return t.skip();
    const before = await count("sessions");
    const browser = new Browser();
    const { csrfToken } = (await (await browser.get(`${app}/jwt/auth/csrf`)).json()) as { csrfToken: string };
    const response = await browser.post(`${app}/jwt/auth/callback/credentials`, {
      csrfToken,
      username: "ada",
      password: "pw",
    });
    expect(response.status).toBe(302);
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith("authjs.session-token="));
    expect(cookie?.split(";")[0]?.split("=")[1]?.split(".")).toHaveLength(5);
    expect(await count("sessions")).toBe(before);
    expect((await sessionOf(browser, app, "/jwt/auth"))?.user?.name).toBe("Ada");
  });
});
