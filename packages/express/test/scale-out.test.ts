import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { serviceAvailable } from "../../adapter-test/src/services.js";
import { linkIn, SMTP_PASS, SMTP_USER, type SmtpFixture, startSmtp } from "../../core/test/email/helpers.js";
import { startTcpProxy } from "../../core/test/security/tcp-proxy.js";
import { Jar } from "./helpers.js";
import { childInstances, type Instance } from "./support/instances.js";

// Several instances of one application share a session store: a session made on one is read on
// the other, and signing out on either ends it everywhere.

const SECRET = `scale-out-${randomBytes(16).toString("hex")}`;
let smtp: SmtpFixture;
const instances = childInstances();

beforeAll(async () => {
  smtp = await startSmtp();
});
afterAll(async () => {
  await instances.stopAll();
  await smtp?.close();
});

function startInstance(env: Record<string, string>): Promise<Instance> {
  return instances.start("instance.mjs", {
    AUTH_SECRET: SECRET,
    SMTP_PORT: String(smtp.port),
    SMTP_USER,
    SMTP_PASS,
    ...env,
  });
}

async function csrf(base: string, jar: Jar): Promise<string> {
  return ((await (await jar.fetch(`${base}/auth/csrf`)).json()) as { csrfToken: string }).csrfToken;
}

/** Signs in by e-mail on `base`: asks for a link, follows it from the mail. */
async function emailSignIn(base: string, jar: Jar, email: string): Promise<void> {
  const before = smtp.mails.length;
  const asked = await jar.fetch(`${base}/auth/signin/nodemailer`, {
    form: { csrfToken: await csrf(base, jar), email },
  });
  expect(asked.headers.get("location")).toMatch(/\/auth\/verify-request/);
  const mail = smtp.mails[before];
  expect(mail?.to).toEqual([email]);
  const link = linkIn(mail?.mail.text);
  const opened = await jar.fetch(link);
  expect(opened.status).toBe(302);
}

async function sessionOn(base: string, jar: Jar): Promise<{ user?: { email?: string } } | null> {
  return (await (await jar.fetch(`${base}/auth/session`)).json()) as { user?: { email?: string } } | null;
}

async function signOutOn(base: string, jar: Jar): Promise<void> {
  const response = await jar.fetch(`${base}/auth/signout`, { form: { csrfToken: await csrf(base, jar) } });
  expect(response.status).toBe(302);
}

/** Proves sharing between two instances: sign in on A, read on B, sign out on B, gone on A. */
async function provesSharing(a: string, b: string): Promise<void> {
  const jar = new Jar();
  const email = `user-${randomBytes(4).toString("hex")}@example.com`;
  await emailSignIn(a, jar, email);
  expect((await sessionOn(a, jar))?.user?.email).toBe(email);
  // the same cookie, presented to the other instance
  const other = new Jar();
  for (const [k, v] of jar.cookies) other.cookies.set(k, v);
  expect((await sessionOn(b, other))?.user?.email).toBe(email);
  await signOutOn(b, other);
  expect(await sessionOn(b, other)).toBeNull();
  expect(await sessionOn(a, jar)).toBeNull();
}

describe("two instances sharing PostgreSQL", () => {
  const database = `latchkey_scale_${process.pid}_${randomBytes(4).toString("hex")}`;
  let up = false;
  let admin: pg.Client;
  beforeAll(async () => {
    up = await serviceAvailable("PostgreSQL", 5432);
    if (!up) return;
    admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    const { migrate, openDatabase } = await import("@latchkey/sql-adapter");
    const db = await openDatabase(`postgres://postgres@127.0.0.1:5432/${database}`);
    await migrate(db);
    await db.destroy();
  });
  afterAll(async () => {
    if (!up) return;
    await instances.stopAll();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  });

  it("a session made on one is read on the other; sign-out on the other ends it on both", async (t) => {
    if (!up) return t.skip();
    const env = { STORE: "postgres", DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${database}` };
    const [a, b] = await Promise.all([startInstance(env), startInstance(env)]);
    await provesSharing(a.url, b.url);
  });

  it("survives the database going away mid-run: bounded errors, no crash, right answers once it is back", async (t) => {
    if (!up) return t.skip();
    const proxy = await startTcpProxy(5432);
    const instance = await startInstance({
      STORE: "postgres",
      DATABASE_URL: `postgres://postgres@127.0.0.1:${proxy.port}/${database}`,
    });
    const jar = new Jar();
    const email = `fault-${randomBytes(4).toString("hex")}@example.com`;
    await emailSignIn(instance.url, jar, email);
    expect((await sessionOn(instance.url, jar))?.user?.email).toBe(email);

    proxy.resetAll();
    await proxy.setMode("refuse");
    if (instance.child.exitCode !== null) throw new Error(`the instance crashed: ${instance.log.join("")}`);
    const started = Date.now();
    const during = await jar.fetch(`${instance.url}/auth/session`);
    expect(during.status).toBe(500);
    expect(await during.json()).toEqual({ message: expect.stringMatching(/could not be read/) });
    expect(Date.now() - started).toBeLessThan(10_000 * inject("timeScale"));
    // getSession treats the outage as signed out instead of failing the application's route
    expect(await (await jar.fetch(`${instance.url}/me`)).json()).toBeNull();
    expect(instance.child.exitCode).toBeNull();

    await proxy.setMode("pass");
    let session = null as { user?: { email?: string } } | null;
    const deadline = Date.now() + 10_000;
    while (!session && Date.now() < deadline) {
      const response = await jar.fetch(`${instance.url}/auth/session`);
      // each attempt is itself the wait: the pool replaces its dead connections as it is asked
      if (response.status === 200) session = (await response.json()) as typeof session;
      else await response.arrayBuffer();
    }
    expect(session?.user?.email).toBe(email);
    expect(instance.log.join("")).toMatch(/SessionTokenError|AdapterError/);
    await proxy.close();
  });
});

describe("two instances sharing Redis", () => {
  const prefix = `latchkey-scale:${process.pid}:${randomBytes(4).toString("hex")}:`;
  let up = false;
  beforeAll(async () => {
    up = await serviceAvailable("Redis", 6379);
  });
  afterAll(async () => {
    if (!up) return;
    const redis = new Redis({ host: "127.0.0.1", port: 6379 });
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it("a session made on one is read on the other; sign-out on the other ends it on both", async (t) => {
    if (!up) return t.skip();
    const env = { STORE: "redis", REDIS_PREFIX: prefix };
    const [a, b] = await Promise.all([startInstance(env), startInstance(env)]);
    await provesSharing(a.url, b.url);
  });
});
