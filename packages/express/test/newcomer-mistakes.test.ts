/**
 * A newcomer's mistakes with Express (issue 25): each test makes the mistake as a new user would
 * and reads what Latchkey says: a database whose tables were never created, `requireAuth` with
 * the handler mounted elsewhere than `/auth`, and a proxy's `X-Forwarded-Proto` that Express does
 * not trust.
 */
import { randomBytes } from "node:crypto";
import type { AuthConfig } from "@latchkey/core";
import Credentials from "@latchkey/core/providers/credentials";
import { SqlAdapter } from "@latchkey/sql-adapter";
import Database from "better-sqlite3";
import express, { type Express } from "express";
import express4 from "express4";
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from "kysely";
import mysql from "mysql2";
import mysqlPromise from "mysql2/promise";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toleratesForcedDrop } from "../../adapter-test/src/services.js";
import { ExpressAuth, requireAuth } from "../src/index.js";
import { Jar, listen } from "./helpers.js";
import type { Db } from "./stores.js";

const SECRET = "newcomer-express-secret-0123456789abcdef";

/** A logger that keeps what it is told: warnings by code, errors with their causes. */
function recorder() {
  const warnings: string[] = [];
  const errors: string[] = [];
  const logger = {
    warn: (code: string) => void warnings.push(code),
    error: (error: Error) => {
      const cause = (error as { cause?: { err?: unknown } }).cause?.err;
      errors.push(`${error.message}${cause instanceof Error ? ` | ${cause.message}` : ""}`);
    },
    debug: () => {},
  };
  return { warnings, errors, logger };
}

const credentials = (options: { databaseSessions?: boolean } = {}) =>
  Credentials({
    credentials: { username: {} },
    authorize: ({ username }) => ({ id: `u-${String(username)}`, email: `${String(username)}@example.com` }),
    ...options,
  });

/** An empty database (no tables) of each SQL kind, and its removal. */
const emptyDatabases: Array<[string, RegExp, () => Promise<{ db: Db; drop: () => Promise<void> }>]> = [
  [
    "PostgreSQL",
    /relation "\w+" does not exist/,
    async () => {
      const database = `latchkey_newcomer_${randomBytes(5).toString("hex")}`;
      const admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${database}`);
      const pool = toleratesForcedDrop(new pg.Pool({ host: "127.0.0.1", user: "postgres", database, max: 2 }));
      const db: Db = new Kysely({ dialect: new PostgresDialect({ pool }) });
      return {
        db,
        drop: async () => {
          await db.destroy();
          await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
          await admin.end();
        },
      };
    },
  ],
  [
    "MariaDB",
    /Table '[\w.]+' doesn't exist/,
    async () => {
      const database = `latchkey_newcomer_${randomBytes(5).toString("hex")}`;
      const admin = await mysqlPromise.createConnection({ host: "127.0.0.1", port: 3306, user: "root" });
      await admin.query(`CREATE DATABASE ${database}`);
      const pool = mysql.createPool({ host: "127.0.0.1", port: 3306, user: "root", database, connectionLimit: 2 });
      const db: Db = new Kysely({ dialect: new MysqlDialect({ pool }) });
      return {
        db,
        drop: async () => {
          await db.destroy();
          await admin.query(`DROP DATABASE IF EXISTS ${database}`);
          await admin.end();
        },
      };
    },
  ],
  [
    "SQLite",
    /no such table: \w+/,
    async () => {
      const db: Db = new Kysely({ dialect: new SqliteDialect({ database: new Database(":memory:") }) });
      return { db, drop: () => db.destroy() };
    },
  ],
];

describe.each(emptyDatabases)("a database whose tables were never created (%s)", (_kind, driverSays, open) => {
  let empty: { db: Db; drop: () => Promise<void> };
  beforeAll(async () => {
    empty = await open();
  });
  afterAll(() => empty?.drop());

  it("a sign-in shows the configuration error page, and the log names npx latchkey migrate <url>", async () => {
    const log = recorder();
    const config: AuthConfig = {
      secret: SECRET,
      adapter: SqlAdapter(empty.db as never),
      providers: [credentials({ databaseSessions: true })],
      logger: log.logger,
    };
    const app = express();
    app.use("/auth", ExpressAuth(config));
    const server = await listen(app);
    try {
      const jar = new Jar();
      const { csrfToken } = (await (await jar.fetch(`${server.url}/auth/csrf`)).json()) as { csrfToken: string };
      const signIn = await jar.fetch(`${server.url}/auth/callback/credentials`, {
        form: { csrfToken, username: "ada" },
      });
      expect(signIn.status).toBe(302);
      const location = signIn.headers.get("location") as string;
      expect(location).toBe(`${server.url}/auth/error?error=Configuration`);
      const page = await jar.fetch(location);
      expect(page.status).toBe(500);
      expect(await page.text()).toContain("There is a problem with the server configuration.");
      const logged = log.errors.find((e) => e.includes("npx latchkey migrate")) ?? "";
      expect(logged).toMatch(
        /^Adapter method `\w+` failed: the database lacks a table or column Latchkey uses \(.+\): create or update its tables with `npx latchkey migrate <database-url>`/,
      );
      expect(logged).toMatch(driverSays);
      expect(jar.cookies.has("authjs.session-token")).toBe(false);
    } finally {
      await server.close();
    }
  });
});

describe.each([
  ["Express 5", express],
  ["Express 4", express4 as unknown as typeof express],
])("requireAuth(config) with ExpressAuth mounted elsewhere (%s)", (_name, make) => {
  function app(mount: string, log: ReturnType<typeof recorder>) {
    const config: AuthConfig = { secret: SECRET, providers: [credentials()], logger: log.logger };
    const application: Express = make();
    application.use(mount, ExpressAuth(config));
    application.get("/account", requireAuth(config), (_req, res) => void res.send("account"));
    return application;
  }

  it("finds the handler at /api/auth before any request reached it, and sends browsers to its sign-in page", async () => {
    const log = recorder();
    const server = await listen(app("/api/auth", log));
    try {
      const response = await fetch(`${server.url}/account`, { redirect: "manual", headers: { accept: "text/html" } });
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toBe("/api/auth/signin?callbackUrl=%2Faccount");
      const signIn = await fetch(new URL(response.headers.get("location") as string, server.url));
      expect(signIn.status).toBe(200);
      expect(log.warnings).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it("mounted on an unusual path, warns once that basePath differs, then follows the mount a request to it showed", async () => {
    const log = recorder();
    const application = make();
    const api = make.Router();
    const config: AuthConfig = { secret: SECRET, providers: [credentials()], logger: log.logger };
    api.use("/login-service", ExpressAuth(config));
    application.use("/v2", api);
    application.get("/account", requireAuth(config), (_req, res) => void res.send("account"));
    const server = await listen(application);
    try {
      const ask = () => fetch(`${server.url}/account`, { redirect: "manual", headers: { accept: "text/html" } });
      expect((await ask()).headers.get("location")).toBe("/auth/signin?callbackUrl=%2Faccount");
      expect((await ask()).status).toBe(302);
      expect(log.warnings).toEqual(["require-auth-mount"]);
      // Once the handler has served a request, its mount is known.
      expect((await fetch(`${server.url}/v2/login-service/providers`)).status).toBe(200);
      expect((await ask()).headers.get("location")).toBe("/v2/login-service/signin?callbackUrl=%2Faccount");
      expect(log.warnings).toEqual(["require-auth-mount"]);
    } finally {
      await server.close();
    }
  });

  it("a configured basePath is used as it is, with no router walk and no warning", async () => {
    const log = recorder();
    const config: AuthConfig = { secret: SECRET, basePath: "/login", providers: [credentials()], logger: log.logger };
    const application = make();
    application.use("/login", ExpressAuth(config));
    application.get("/account", requireAuth(config), (_req, res) => void res.send("account"));
    const server = await listen(application);
    try {
      const response = await fetch(`${server.url}/account`, { redirect: "manual", headers: { accept: "text/html" } });
      expect(response.headers.get("location")).toBe("/login/signin?callbackUrl=%2Faccount");
      expect(log.warnings).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe("X-Forwarded-Proto: https while Express does not trust the proxy", () => {
  async function serverWith(trustProxy: number | undefined, log: ReturnType<typeof recorder>) {
    const config: AuthConfig = { secret: SECRET, trustHost: true, providers: [credentials()], logger: log.logger };
    const application = express();
    if (trustProxy !== undefined) application.set("trust proxy", trustProxy);
    application.use("/auth", ExpressAuth(config));
    return listen(application);
  }

  it("is warned once however many requests carry it (their links and cookies are http's)", async () => {
    const log = recorder();
    const server = await serverWith(undefined, log);
    try {
      for (let i = 0; i < 3; i++) {
        const response = await fetch(`${server.url}/auth/csrf`, { headers: { "x-forwarded-proto": "https" } });
        expect(response.headers.getSetCookie().join()).not.toContain("__Host-");
      }
      expect(log.warnings).toEqual(["forwarded-proto-untrusted"]);
    } finally {
      await server.close();
    }
  });

  it("is not warned when Express trusts the proxy (the request is https), nor without the header", async () => {
    const log = recorder();
    const trusted = await serverWith(1, log);
    const plain = await serverWith(undefined, log);
    try {
      const response = await fetch(`${trusted.url}/auth/csrf`, { headers: { "x-forwarded-proto": "https" } });
      expect(response.headers.getSetCookie().join()).toContain("__Host-authjs.csrf-token");
      expect((await fetch(`${plain.url}/auth/csrf`)).status).toBe(200);
      expect((await fetch(`${plain.url}/auth/csrf`, { headers: { "x-forwarded-proto": "http" } })).status).toBe(200);
      expect(log.warnings).toEqual([]);
    } finally {
      await trusted.close();
      await plain.close();
    }
  });
});
