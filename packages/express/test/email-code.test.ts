// E-mail one-time codes over Express on a real socket, with the real SMTP server, on the
// MemoryAdapter, SqlAdapter on PostgreSQL and MariaDB (fresh databases) and RedisAdapter (random prefix): the
// code is read from the caught mail and posted through the verify-request page's form.
import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import { connect } from "node:net";
import type { Adapter } from "@latchkey/core/adapters";
import { createMemoryStore, MemoryAdapter } from "@latchkey/core/memory-adapter";
import { type AuthConfig, ExpressAuth } from "@latchkey/express";
import Nodemailer from "@latchkey/express/providers/nodemailer";
import { RedisAdapter } from "@latchkey/redis-adapter";
import { migrate, SqlAdapter } from "@latchkey/sql-adapter";
import express from "express";
import { Redis } from "ioredis";
import { Kysely, MysqlDialect, PostgresDialect } from "kysely";
import mysql from "mysql2";
import mysqlPromise from "mysql2/promise";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CookieJar, linkIn, SECRET, type SmtpFixture, smtpServer, startSmtp } from "../../core/test/email/helpers.js";

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** An adapter to run on, a count of its sessions, and its teardown. */
interface Backend {
  adapter: Adapter;
  sessions(): Promise<number>;
  close(): Promise<void>;
}

async function memory(): Promise<Backend> {
  const store = createMemoryStore();
  return { adapter: MemoryAdapter(store), sessions: async () => store.sessions.size, close: async () => {} };
}

async function postgres(): Promise<Backend> {
  const database = `latchkey_code_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const pool = new pg.Pool({ host: "127.0.0.1", port: 5432, user: "postgres", database, max: 20 });
  // A connection still closing when the database is dropped reports 57P01: expected at teardown.
  pool.on("error", (error) => {
    if ((error as { code?: string }).code !== "57P01") throw error;
  });
  const db = new Kysely<Record<string, Record<string, unknown>>>({ dialect: new PostgresDialect({ pool }) });
  await migrate(db as never);
  return {
    adapter: SqlAdapter(db as never),
    sessions: async () =>
      Number((await db.selectFrom("sessions").select(db.fn.countAll().as("n")).executeTakeFirstOrThrow()).n),
    close: async () => {
      await db.destroy();
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
    },
  };
}

async function mariadb(): Promise<Backend> {
  const database = `latchkey_code_${randomBytes(6).toString("hex")}`;
  const admin = await mysqlPromise.createConnection({ host: "127.0.0.1", port: 3306, user: "root" });
  await admin.query(`CREATE DATABASE ${database}`);
  const pool = mysql.createPool({ host: "127.0.0.1", port: 3306, user: "root", database, connectionLimit: 20 });
  const db = new Kysely<Record<string, Record<string, unknown>>>({ dialect: new MysqlDialect({ pool }) });
  await migrate(db as never);
  return {
    adapter: SqlAdapter(db as never),
    sessions: async () =>
      Number((await db.selectFrom("sessions").select(db.fn.countAll().as("n")).executeTakeFirstOrThrow()).n),
    close: async () => {
      await db.destroy();
      await admin.query(`DROP DATABASE IF EXISTS ${database}`);
      await admin.end();
    },
  };
}

async function redis(): Promise<Backend> {
  const prefix = `latchkey-code-test:${randomBytes(6).toString("hex")}:`;
  const client = new Redis({ host: "127.0.0.1", port: 6379 });
  return {
    adapter: RedisAdapter(client, { prefix }),
    sessions: async () => (await client.keys(`${prefix}session:*`)).length,
    close: async () => {
      const keys = await client.keys(`${prefix}*`);
      if (keys.length) await client.del(...keys);
      client.disconnect();
    },
  };
}

const backends: Array<[string, boolean, () => Promise<Backend>]> = [
  ["MemoryAdapter", true, memory],
  ["SqlAdapter on PostgreSQL", await listening(5432), postgres],
  ["SqlAdapter on MariaDB", await listening(3306), mariadb],
  ["RedisAdapter", await listening(6379), redis],
];

let smtp: SmtpFixture;
beforeAll(async () => {
  smtp = await startSmtp();
});
afterAll(() => smtp.close());

describe.each(backends)("rule: an e-mailed code signs in once, over Express with %s", (_name, up, open) => {
  let backend: Backend;
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    if (!up) return;
    backend = await open();
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter: backend.adapter,
      logger: { error: () => {}, warn: () => {}, debug: () => {} },
      // All 50 concurrent submissions come from one client: the per-client limits would refuse most
      // of them before they reach the adapter, and it is the adapter's race that is tested here.
      rateLimit: {
        emailCodePerIdentifierAndIp: { max: 100, windowSeconds: 60 },
        emailCodePerIdentifier: { max: 100, windowSeconds: 60 },
        emailCodePerIp: { max: 200, windowSeconds: 60 },
      },
      providers: [Nodemailer({ server: smtpServer(smtp.port), from: "Latchkey <no-reply@app.test>", code: true })],
    };
    const app = express();
    app.use("/auth", ExpressAuth(config));
    await new Promise<void>((resolve) => {
      server = app.listen(0, "127.0.0.1", () => resolve());
    });
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    if (!up) return;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await backend.close();
  });

  async function request(jar: CookieJar, url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (jar.values.size) headers.set("cookie", jar.header());
    const response = await fetch(new URL(url, origin), { ...init, headers, redirect: "manual" });
    jar.take(response);
    return response;
  }

  /** Asks for an e-mail as the browser `jar`; returns the mailed code and link. */
  async function ask(jar: CookieJar, email: string): Promise<{ code: string; link: string }> {
    const { csrfToken } = (await (await request(jar, "/auth/csrf")).json()) as { csrfToken: string };
    const response = await request(jar, "/auth/signin/nodemailer", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken, email, callbackUrl: `${origin}/dashboard` }),
    });
    expect(response.headers.get("location")).toBe(`${origin}/auth/verify-request?provider=nodemailer&type=email`);
    const text = smtp.mails.findLast((m) => m.to.includes(email))?.mail.text ?? "";
    const code = /code: (\d{6})\b/.exec(text)?.[1];
    if (!code) throw new Error(`no code in: ${text}`);
    return { code, link: linkIn(text) };
  }

  /** The verify-request page's form, as the browser `jar` sees it. */
  async function form(jar: CookieJar): Promise<{ action: string; csrfToken: string }> {
    const page = await (await request(jar, "/auth/verify-request?provider=nodemailer&type=email")).text();
    const action = /<form class="email-code" action="([^"]+)"/.exec(page)?.[1];
    const csrfToken = /name="csrfToken" value="([^"]+)"/.exec(page)?.[1];
    if (!action || !csrfToken) throw new Error("no code form on the verify-request page");
    return { action, csrfToken };
  }

  async function submit(jar: CookieJar, code: string): Promise<string | null> {
    const { action, csrfToken } = await form(jar);
    const response = await request(jar, action, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken, code }),
    });
    return response.headers.get("location");
  }

  const address = (name: string) => `${name}-${randomBytes(3).toString("hex")}@example.com`;
  const refused = () => `${origin}/auth/verify-request?provider=nodemailer&type=email&error=Verification`;

  it.skipIf(!up)("signs in with the six-digit code read from the mail", async () => {
    const jar = new CookieJar();
    const email = address("ada");
    const { code } = await ask(jar, email);
    expect(await submit(jar, code)).toBe(`${origin}/dashboard`);
    const session = (await (await request(jar, "/auth/session")).json()) as { user?: { email?: string } };
    expect(session.user?.email).toBe(email);
  });

  it.skipIf(!up)("turns 50 concurrent submissions of one code into exactly one session", async () => {
    const jar = new CookieJar();
    const { code } = await ask(jar, address("race"));
    const { action, csrfToken } = await form(jar);
    const before = await backend.sessions();
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        fetch(new URL(action, origin), {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header() },
          body: new URLSearchParams({ csrfToken, code }),
        }),
      ),
    );
    const locations = responses.map((r) => r.headers.get("location"));
    expect(locations.filter((l) => l === `${origin}/dashboard`)).toHaveLength(1);
    expect(locations.filter((l) => l === refused())).toHaveLength(49);
    expect(await backend.sessions()).toBe(before + 1);
  });

  it.skipIf(!up)("voids code and link after five wrong codes", async () => {
    const jar = new CookieJar();
    const { code, link } = await ask(jar, address("guess"));
    for (let i = 1; i <= 5; i++) {
      expect(await submit(jar, String((Number(code) + i) % 1_000_000).padStart(6, "0"))).toBe(refused());
    }
    expect(await submit(jar, code)).toBe(refused());
    expect((await request(new CookieJar(), link)).headers.get("location")).toBe(
      `${origin}/auth/error?error=Verification`,
    );
  });

  it.skipIf(!up)("refuses another address's code, and a code after the link was used", async () => {
    const alice = new CookieJar();
    const bob = new CookieJar();
    await ask(alice, address("alice"));
    const bobs = await ask(bob, address("bob"));
    expect(await submit(alice, bobs.code)).toBe(refused());
    expect((await request(new CookieJar(), bobs.link)).headers.get("location")).toBe(`${origin}/dashboard`);
    expect(await submit(bob, bobs.code)).toBe(refused());
  });
});
