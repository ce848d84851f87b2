import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { serviceAvailable } from "../../adapter-test/src/services.js";
import { linkIn, SMTP_PASS, SMTP_USER, type SmtpFixture, startSmtp } from "../../core/test/email/helpers.js";
import { startTcpProxy } from "../../core/test/security/tcp-proxy.js";
import { Jar } from "./helpers.js";
import { childInstances, type Instance } from "./support/instances.js";
import { signOut, signOutUntilDone } from "./support/sign-out.js";

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

function copyOf(jar: Jar): Jar {
  const copy = new Jar();
  for (const [k, v] of jar.cookies) copy.cookies.set(k, v);
  return copy;
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

  /** `count` users, each with a session made in the database, and a browser holding its cookie. */
  async function sessions(prefix: string, count: number): Promise<{ jars: Jar[]; close: () => Promise<void> }> {
    const { SqlAdapter, openDatabase } = await import("@latchkey/sql-adapter");
    const db = await openDatabase(`postgres://postgres@127.0.0.1:5432/${database}`);
    const adapter = SqlAdapter(db);
    const jars: Jar[] = [];
    for (let i = 0; i < count; i++) {
      const user = await adapter.createUser?.({
        id: randomBytes(8).toString("hex"),
        email: `${prefix}${i}-${randomBytes(4).toString("hex")}@example.com`,
        emailVerified: null,
      });
      const sessionToken = randomBytes(32).toString("hex");
      await adapter.createSession?.({
        sessionToken,
        userId: user?.id as string,
        expires: new Date(Date.now() + 86_400_000),
      });
      const jar = new Jar();
      jar.cookies.set("authjs.session-token", sessionToken);
      jars.push(jar);
    }
    return { jars, close: () => db.destroy() };
  }

  /** The session's e-mail on `base` for a copy of `jar`'s cookies, once the database answers (a 500 is "not yet"). */
  async function settled(base: string, jar: Jar): Promise<string | null> {
    const started = performance.now();
    for (;;) {
      const response = await fetch(`${base}/auth/session`, { headers: { cookie: jar.header() } });
      if (response.status === 200)
        return ((await response.json()) as { user?: { email?: string } } | null)?.user?.email ?? null;
      expect(response.status).toBe(500);
      await response.arrayBuffer();
      if (performance.now() - started > 15_000) throw new Error("the database never answered again");
    }
  }

  // Issue 22.3: a soak run that killed PostgreSQL connections under load saw sign-outs log
  // SignOutError, answer the normal 302 and clear the cookie while the row survived, and a copy
  // of the cookie kept working on both instances.
  it("rule: a sign-out the database does not confirm says not done (form and script) and keeps the cookie; the copy goes on, and signing out again ends it on both instances", async (t) => {
    if (!up) return t.skip();
    const proxy = await startTcpProxy(5432);
    const env = { STORE: "postgres", DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${database}` };
    const [cut, other] = await Promise.all([
      startInstance({ STORE: "postgres", DATABASE_URL: `postgres://postgres@127.0.0.1:${proxy.port}/${database}` }),
      startInstance(env),
    ]);
    const made = await sessions("cut", 2);
    const copies = made.jars.map(copyOf);
    const emails = await Promise.all(copies.map((copy) => settled(other.url, copy)));
    expect(emails.every((e) => e?.startsWith("cut"))).toBe(true);

    proxy.resetAll();
    await proxy.setMode("refuse");
    const outcomes = [
      await signOut(cut.url, made.jars[0] as Jar, "form"),
      await signOut(cut.url, made.jars[1] as Jar, "script"),
    ];
    expect(outcomes).toEqual([
      { done: false, status: 302 },
      { done: false, status: 503 },
    ]);
    for (const [i, jar] of made.jars.entries()) {
      expect(jar.cookies.has("authjs.session-token"), "the cookie is kept").toBe(true);
      expect(await settled(other.url, copies[i] as Jar), "the session goes on, as the answer said").toBe(emails[i]);
    }
    expect(cut.log.join("")).toMatch(/SignOutError: The session was not signed out/);

    await proxy.setMode("pass");
    for (const jar of made.jars) await signOutUntilDone(cut.url, jar);
    for (const copy of copies) {
      expect(await settled(other.url, copy)).toBeNull();
      expect(await settled(cut.url, copy)).toBeNull();
    }
    await made.close();
    await Promise.all([instances.stop(cut), instances.stop(other)]);
    await proxy.close();
  }, 60_000);

  it("rule: sign-outs while PostgreSQL connections are killed: each answered done holds on both instances; each answered not done keeps its cookie, and signing out again then holds", async (t) => {
    if (!up) return t.skip();
    const env = { STORE: "postgres", DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${database}` };
    const [a, b] = await Promise.all([startInstance(env), startInstance(env)]);
    const made = await sessions("killed", 16);
    const copies = made.jars.map(copyOf);
    for (const copy of copies) expect(await settled(b.url, copy)).toMatch(/^killed/);
    const tokens = await Promise.all(made.jars.map((jar) => csrf(a.url, jar)));

    const running = made.jars.map((jar, i) => signOut(a.url, jar, i % 2 ? "script" : "form", tokens[i]));
    // From the first answer on, kill every connection to the database, back to back, for as long
    // as the others run.
    await Promise.race(running);
    let killing = true;
    let killed = 0;
    const killer = (async () => {
      while (killing) {
        const { rows } = await admin.query(
          "SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
          [database],
        );
        killed += (rows[0] as { n: number }).n;
      }
    })();
    const outcomes = await Promise.all(running);
    killing = false;
    await killer;
    expect(killed).toBeGreaterThan(0);

    for (const [i, outcome] of outcomes.entries()) {
      const copy = copies[i] as Jar;
      if (!outcome.done) {
        expect(made.jars[i]?.cookies.has("authjs.session-token")).toBe(true);
        await signOutUntilDone(a.url, made.jars[i] as Jar);
      }
      expect(await settled(b.url, copy)).toBeNull();
      expect(await settled(a.url, copy)).toBeNull();
    }
    console.log(
      `[sign-out] PostgreSQL connections killed ${killed} times during 16 sign-outs: ${outcomes.filter((o) => o.done).length} done, ${outcomes.filter((o) => !o.done).length} answered not done`,
    );
    await made.close().catch(() => {});
    await Promise.all([instances.stop(a), instances.stop(b)]);
  }, 60_000);
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
