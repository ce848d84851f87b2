// E-mail magic-link sign-in over Express on a real socket, with a real SMTP server, against the
// MemoryAdapter, SqlAdapter on PostgreSQL (fresh random database) and RedisAdapter (random prefix).
import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import { connect } from "node:net";
import type { Adapter } from "@latchkey/core/adapters";
import { MemoryAdapter } from "@latchkey/core/memory-adapter";
import { type AuthConfig, ExpressAuth } from "@latchkey/express";
import Nodemailer from "@latchkey/express/providers/nodemailer";
import { RedisAdapter } from "@latchkey/redis-adapter";
import { migrate, SqlAdapter } from "@latchkey/sql-adapter";
import express from "express";
import { Redis } from "ioredis";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CookieJar, linkIn, SECRET, type SmtpFixture, smtpServer, startSmtp } from "../../core/test/email/helpers.js";

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
const postgresUp = await reachable(5432);
const redisUp = await reachable(6379);

/** A store to run the flow on: the adapter, how many sessions it holds, and its teardown. */
interface Store {
  adapter: Adapter;
  sessions(): Promise<number>;
  tokens(): Promise<number>;
  close(): Promise<void>;
}

async function memoryStore(): Promise<Store> {
  const { createMemoryStore } = await import("@latchkey/core/memory-adapter");
  const store = createMemoryStore();
  return {
    adapter: MemoryAdapter(store),
    sessions: async () => store.sessions.size,
    tokens: async () => store.verificationTokens.size,
    close: async () => {},
  };
}

async function postgresStore(): Promise<Store> {
  const name = `latchkey_email_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const pool = new pg.Pool({ host: "127.0.0.1", port: 5432, user: "postgres", database: name, max: 20 });
  // DROP ... WITH (FORCE) at teardown can reach a connection that is still closing (57P01).
  pool.on("error", (error) => {
    if ((error as { code?: string }).code !== "57P01") throw error;
  });
  const db = new Kysely<Record<string, Record<string, unknown>>>({ dialect: new PostgresDialect({ pool }) });
  await migrate(db as never);
  const count = async (table: string) =>
    Number((await db.selectFrom(table).select(db.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);
  return {
    adapter: SqlAdapter(db as never),
    sessions: () => count("sessions"),
    tokens: () => count("verification_tokens"),
    close: async () => {
      await db.destroy();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

async function redisStore(): Promise<Store> {
  const prefix = `latchkey-email-test:${randomBytes(6).toString("hex")}:`;
  const client = new Redis({ host: "127.0.0.1", port: 6379, lazyConnect: false });
  const count = async (kind: string) => (await client.keys(`${prefix}${kind}:*`)).length;
  return {
    adapter: RedisAdapter(client, { prefix }),
    sessions: () => count("session"),
    tokens: () => count("verification-token"),
    close: async () => {
      const keys = await client.keys(`${prefix}*`);
      if (keys.length) await client.del(...keys);
      client.disconnect();
    },
  };
}

const stores: Array<[string, boolean, () => Promise<Store>]> = [
  ["MemoryAdapter", true, memoryStore],
  ["SqlAdapter on PostgreSQL", postgresUp, postgresStore],
  ["RedisAdapter", redisUp, redisStore],
];

let smtp: SmtpFixture;
beforeAll(async () => {
  smtp = await startSmtp();
});
afterAll(() => smtp.close());

describe.each(stores)("e-mail sign-in over Express with %s", (_name, up, open) => {
  let store: Store;
  let server: Server;
  let origin: string;
  let config: AuthConfig;

  beforeAll(async () => {
    if (!up) return;
    store = await open();
    config = {
      secret: SECRET,
      trustHost: true,
      adapter: store.adapter,
      logger: { error: () => {}, warn: () => {}, debug: () => {} },
      providers: [Nodemailer({ server: smtpServer(smtp.port), from: "Latchkey <no-reply@app.test>" })],
    };
    const app = express();
    app.use("/auth", ExpressAuth(config));
    app.get("/dashboard", (_req, res) => void res.send("dashboard"));
    await new Promise<void>((resolve) => {
      server = app.listen(0, "127.0.0.1", () => resolve());
    });
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    if (!up) return;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await store.close();
  });

  async function get(jar: CookieJar, url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (jar.values.size) headers.set("cookie", jar.header());
    const response = await fetch(new URL(url, origin), { ...init, headers, redirect: "manual" });
    jar.take(response);
    return response;
  }

  async function mailedLink(email: string): Promise<string> {
    const jar = new CookieJar();
    const { csrfToken } = (await (await get(jar, "/auth/csrf")).json()) as { csrfToken: string };
    const before = smtp.mails.length;
    const response = await get(jar, "/auth/signin/nodemailer", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken, email, callbackUrl: `${origin}/dashboard` }),
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(`${origin}/auth/verify-request?provider=nodemailer&type=email`);
    expect(smtp.mails.length).toBe(before + 1);
    const received = smtp.mails.at(-1);
    expect(received?.to).toEqual([email.trim().toLowerCase()]);
    return linkIn(received?.mail.text);
  }

  it.skipIf(!up)("mails a link that signs in once, on the callbackUrl, with a database session", async () => {
    const email = `ada-${randomBytes(3).toString("hex")}@example.com`;
    const link = await mailedLink(email);
    expect(new URL(link).origin).toBe(origin);
    const sessionsBefore = await store.sessions();
    const browser = new CookieJar();
    const click = await get(browser, link);
    expect(click.status).toBe(302);
    expect(click.headers.get("location")).toBe(`${origin}/dashboard`);
    const session = (await (await get(browser, "/auth/session")).json()) as { user?: { email?: string } };
    expect(session.user?.email).toBe(email);
    expect(await store.sessions()).toBe(sessionsBefore + 1);
    const again = await get(new CookieJar(), link);
    expect(again.headers.get("location")).toBe(`${origin}/auth/error?error=Verification`);
  });

  it.skipIf(!up)("refuses the token with another address", async () => {
    const link = new URL(await mailedLink(`bob-${randomBytes(3).toString("hex")}@example.com`));
    link.searchParams.set("email", "mallory@example.com");
    expect((await get(new CookieJar(), link.href)).headers.get("location")).toBe(
      `${origin}/auth/error?error=Verification`,
    );
  });

  it.skipIf(!up)("turns 50 concurrent clicks on one link into exactly one session", async () => {
    const link = await mailedLink(`carol-${randomBytes(3).toString("hex")}@example.com`);
    const before = await store.sessions();
    const responses = await Promise.all(Array.from({ length: 50 }, () => get(new CookieJar(), link)));
    const locations = responses.map((r) => r.headers.get("location"));
    expect(locations.filter((l) => l === `${origin}/dashboard`)).toHaveLength(1);
    expect(locations.filter((l) => l === `${origin}/auth/error?error=Verification`)).toHaveLength(49);
    expect(await store.sessions()).toBe(before + 1);
  });

  it.skipIf(!up)("refuses a hostile address before any mail is sent, storing nothing", async () => {
    const tokensBefore = await store.tokens();
    const jar = new CookieJar();
    const { csrfToken } = (await (await get(jar, "/auth/csrf")).json()) as { csrfToken: string };
    const before = smtp.mails.length;
    const response = await get(jar, "/auth/signin/nodemailer", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken, email: "victim@example.com\r\nBcc: eve@evil.test" }),
    });
    expect(response.headers.get("location")).toBe(`${origin}/auth/signin?error=EmailSignin`);
    expect(smtp.mails.length).toBe(before);
    expect(await store.tokens()).toBe(tokensBefore);
  });
});
