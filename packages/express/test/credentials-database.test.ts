/**
 * Credentials sign-in with database sessions (`databaseSessions: true`) over Express with the SQL
 * adapter on PostgreSQL: the user, its `credentials` account and the session are rows; the
 * session is read and deleted through the routes; concurrent first sign-ins make one user.
 * Passwords are checked with `@latchkey/core/password`, as an application does.
 */

import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dummyVerify, hashPassword, verifyPassword } from "@latchkey/core/password";
import { type AuthConfig, ExpressAuth } from "@latchkey/express";
import Credentials from "@latchkey/express/providers/credentials";
import { migrate, SqlAdapter } from "@latchkey/sql-adapter";
import express from "express";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceAvailable, toleratesForcedDrop } from "../../adapter-test/src/services.js";
import { Browser } from "../../core/test/oauth/support/browser.js";
import { SECRET, sessionOf } from "../../core/test/oauth/support/flow.js";

const database = `latchkey_creddb_${randomBytes(5).toString("hex")}`;
const FAST = { parameters: { ln: 10 } };
let up = false;
let admin: pg.Client;
let db: Kysely<Record<string, Record<string, unknown>>>;
let server: Server;
let app = "";
const events: string[] = [];
// The application's own table of password hashes, by login (Latchkey's tables hold none).
const passwords = new Map<string, { id: string; hash: string }>();
// The barrier of the concurrency test: authorize() of "race" waits until all have arrived.
const race = { expected: 0, arrived: 0, release: () => {}, gate: Promise.resolve() };

const count = async (table: string) =>
  Number((await db.selectFrom(table).select(db.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);

beforeAll(async () => {
  up = await serviceAvailable("PostgreSQL", 5432);
  if (!up) return;
  admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const pool = toleratesForcedDrop(new pg.Pool({ host: "127.0.0.1", port: 5432, user: "postgres", database, max: 10 }));
  db = new Kysely({ dialect: new PostgresDialect({ pool }) });
  await migrate(db as never);
  for (const [login, password] of [
    ["ada", "analytical engine"],
    ["race", "thirty at once"],
  ] as const) {
    passwords.set(login, {
      id: `app-${login}-${randomBytes(3).toString("hex")}`,
      hash: await hashPassword(password, FAST),
    });
  }

  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter: SqlAdapter(db as never),
    // The limiter has its own tests; here thirty correct sign-ins of one identifier are the point.
    rateLimit: false,
    logger: { error() {}, warn() {}, debug() {} },
    basePath: "/auth",
    providers: [
      Credentials({
        databaseSessions: true,
        credentials: { login: {}, password: {} },
        async authorize({ login, password }) {
          const row = passwords.get(String(login));
          if (!row) return dummyVerify(String(password), FAST).then(() => null);
          if (!(await verifyPassword(String(password), row.hash))) return null;
          if (login === "race") {
            if (++race.arrived === race.expected) race.release();
            await race.gate;
          }
          return { id: row.id, name: String(login).toUpperCase(), email: `${String(login)}@example.com` };
        },
      }),
    ],
    events: {
      createUser: () => void events.push("createUser"),
      linkAccount: () => void events.push("linkAccount"),
    },
  };
  const application = express();
  application.use("/auth", ExpressAuth(config));
  server = application.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  app = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  if (!up) return;
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await db?.destroy();
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
});

async function post(browser: Browser, form: Record<string, string>) {
  const { csrfToken } = (await (await browser.get(`${app}/auth/csrf`)).json()) as { csrfToken: string };
  return browser.post(`${app}/auth/callback/credentials`, { csrfToken, ...form });
}

describe("credentials with database sessions over Express on PostgreSQL", () => {
  it("a sign-in writes user, credentials account and session rows; the session reads back; sign-out deletes the row", async (t) => {
    if (!up) return t.skip();
    const ada = passwords.get("ada")!;
    const browser = new Browser();
    const response = await post(browser, { login: "ada", password: "analytical engine" });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(`${app}`);
    const user = await db.selectFrom("users").selectAll().where("id", "=", ada.id).executeTakeFirstOrThrow();
    expect(user).toMatchObject({ name: "ADA", email: "ada@example.com", emailVerified: null });
    const accounts = await db.selectFrom("accounts").selectAll().where("userId", "=", ada.id).execute();
    expect(accounts).toEqual([
      expect.objectContaining({ provider: "credentials", providerAccountId: ada.id, type: "credentials" }),
    ]);
    const sessions = await db.selectFrom("sessions").selectAll().where("userId", "=", ada.id).execute();
    expect(sessions).toHaveLength(1);
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith("authjs.session-token="));
    expect(cookie?.split(";")[0]?.split("=")[1]).toBe(sessions[0]?.sessionToken);
    expect((await sessionOf(browser, app, "/auth"))?.user).toMatchObject({ name: "ADA", email: "ada@example.com" });

    const { csrfToken } = (await (await browser.get(`${app}/auth/csrf`)).json()) as { csrfToken: string };
    expect((await browser.post(`${app}/auth/signout`, { csrfToken })).status).toBe(302);
    expect(await db.selectFrom("sessions").selectAll().where("userId", "=", ada.id).execute()).toEqual([]);
    expect(await sessionOf(browser, app, "/auth")).toBeNull();

    await post(browser, { login: "ada", password: "analytical engine" });
    expect(await db.selectFrom("users").selectAll().where("id", "=", ada.id).execute()).toHaveLength(1);
    expect(await db.selectFrom("accounts").selectAll().where("userId", "=", ada.id).execute()).toHaveLength(1);
    expect(await db.selectFrom("sessions").selectAll().where("userId", "=", ada.id).execute()).toHaveLength(1);
  });

  it("a wrong password or an unknown login writes nothing and sets no session cookie", async (t) => {
    if (!up) return t.skip();
    const before = [await count("users"), await count("accounts"), await count("sessions")];
    for (const form of [
      { login: "ada", password: "Analytical engine" },
      { login: "nobody", password: "analytical engine" },
      { login: "ada", password: "analytical engine\u0000" },
    ]) {
      const browser = new Browser();
      const response = await post(browser, form);
      expect(response.headers.get("location")).toMatch(/error=CredentialsSignin/);
      expect(response.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token="))).toBe(false);
    }
    expect([await count("users"), await count("accounts"), await count("sessions")]).toEqual(before);
  });

  it("30 concurrent first sign-ins give 30 session rows of one user and one account, one createUser event", async (t) => {
    if (!up) return t.skip();
    const id = passwords.get("race")!.id;
    race.expected = 30;
    race.arrived = 0;
    race.gate = new Promise<void>((resolve) => {
      race.release = resolve;
    });
    events.length = 0;
    const browsers = Array.from({ length: 30 }, () => new Browser());
    const responses = await Promise.all(browsers.map((b) => post(b, { login: "race", password: "thirty at once" })));
    expect(responses.map((r) => `${r.status} ${r.headers.get("location")}`)).toEqual(Array(30).fill(`302 ${app}`));
    expect(await db.selectFrom("users").select("id").where("id", "=", id).execute()).toHaveLength(1);
    expect(await db.selectFrom("accounts").select("userId").where("providerAccountId", "=", id).execute()).toHaveLength(
      1,
    );
    const rows = await db.selectFrom("sessions").select(["sessionToken", "userId"]).where("userId", "=", id).execute();
    expect(rows).toHaveLength(30);
    expect(events.filter((e) => e === "createUser")).toHaveLength(1);
    expect(events.filter((e) => e === "linkAccount")).toHaveLength(1);
    const read = await Promise.all(browsers.map((b) => sessionOf(b, app, "/auth")));
    expect(read.map((s) => s?.user?.name)).toEqual(Array(30).fill("RACE"));
  });
});
