/**
 * Database-strategy flows over Express with the SQL adapter on PostgreSQL: an OpenID Connect
 * sign-in (real `oidc-provider`) creates the user, the account and the session in the database;
 * sign-out deletes the session row. Credentials stay on JWT sessions even with the adapter.
 */

import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type AuthConfig, ExpressAuth } from "@latchkey/express";
import Credentials from "@latchkey/express/providers/credentials";
import OIDC from "@latchkey/express/providers/generic-oidc";
import { migrate, SqlAdapter } from "@latchkey/sql-adapter";
import express from "express";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceAvailable } from "../../adapter-test/src/services.js";
import { Browser } from "../../core/test/oauth/support/browser.js";
import { SECRET, sessionOf, signInThrough } from "../../core/test/oauth/support/flow.js";
import { startOP, type TestOP } from "../../core/test/oauth/support/op.js";

const database = `latchkey_dbflow_${randomBytes(5).toString("hex")}`;
let up = false;
let admin: pg.Client;
let db: Kysely<Record<string, Record<string, unknown>>>;
let op: TestOP;
let server: Server;
let app = "";

const count = async (table: string) =>
  Number((await db.selectFrom(table).select(db.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);

beforeAll(async () => {
  up = await serviceAvailable("PostgreSQL", 5432);
  if (!up) return;
  admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const pool = new pg.Pool({ host: "127.0.0.1", port: 5432, user: "postgres", database, max: 5 });
  // DROP ... WITH (FORCE) at teardown can reach a connection that is still closing (57P01).
  pool.on("error", (error) => {
    if ((error as { code?: string }).code !== "57P01") throw error;
  });
  db = new Kysely({ dialect: new PostgresDialect({ pool }) });
  await migrate(db as never);

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
  server = application.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  app = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  op = await startOP([
    { client_id: "latchkey", client_secret: "latchkey-secret", redirect_uris: [`${app}/db/auth/callback/op`] },
  ]);
});

afterAll(async () => {
  if (!up) return;
  await op?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await db?.destroy();
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
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
