/**
 * The session store slow or down (OWASP ASVS 7.4 / 11.1.4 bounded failure, ARCHITECTURE §8 "never
 * a crash"): Express + Latchkey with database sessions in PostgreSQL (SqlAdapter) and Redis
 * (RedisAdapter over ioredis), each reached through a TCP proxy on loopback that delays, swallows,
 * resets or refuses. Every request gets an answer within a bound, errors are 500s (never a hang or
 * a crash), nothing is lost, and everything works again when the store is back.
 */
import { randomBytes } from "node:crypto";
import { serviceAvailable } from "@latchkey/adapter-test/services";
import type { AuthConfig } from "@latchkey/core";
import { RedisAdapter } from "@latchkey/redis-adapter";
import { migrate, openDatabase, SqlAdapter } from "@latchkey/sql-adapter";
import express from "express";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startTcpProxy, type TcpProxy } from "../../core/test/security/tcp-proxy.js";
import { ExpressAuth, getSession } from "../src/index.js";
import { listen } from "./helpers.js";

const SECRET = `faults-${randomBytes(16).toString("hex")}`;
/** The longest an answer may take while the store misbehaves. */
const BOUND_MS = Math.ceil(12_000 * inject("timeScale")); // whole milliseconds: AbortSignal.timeout takes no fraction

type Adapter = NonNullable<AuthConfig["adapter"]>;

async function app(adapter: Adapter) {
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    rateLimit: false,
    logger: { error() {}, warn() {}, debug() {} },
    providers: [{ id: "mail", name: "Mail", type: "email", sendVerificationRequest: () => {} }],
  };
  const server = express();
  server.use("/auth", ExpressAuth(config));
  server.get("/me", async (req, res) => void res.json(await getSession(req, config)));
  // By address, not by name: a lookup of "localhost" is one more thing a busy machine can fail.
  return listen(server, "127.0.0.1");
}

/** A user with a database session made directly in the store; returns its cookie header. */
async function seedSession(adapter: Adapter): Promise<string> {
  const user = await adapter.createUser?.({
    id: randomBytes(8).toString("hex"),
    email: `f-${randomBytes(4).toString("hex")}@example.com`,
    emailVerified: null,
  } as never);
  const sessionToken = randomBytes(32).toString("hex");
  await adapter.createSession?.({
    sessionToken,
    userId: (user as { id: string }).id,
    expires: new Date(Date.now() + 3600_000),
  });
  return `authjs.session-token=${sessionToken}`;
}

/** GET `path`, bounded; returns the status (or "timeout") and how long it took. */
async function timedGet(
  url: string,
  cookie: string,
): Promise<{ status: number | "timeout"; ms: number; body?: unknown; error?: string }> {
  const started = performance.now();
  try {
    const response = await fetch(url, { headers: { cookie }, signal: AbortSignal.timeout(BOUND_MS + 5_000) });
    const body = await response.json().catch(() => undefined);
    return { status: response.status, ms: performance.now() - started, body };
  } catch (e) {
    // "timeout" covers any request that got no answer; the error says which (for a failure's message).
    const error = e instanceof Error ? `${e.name}: ${e.message}${e.cause ? ` (${String(e.cause)})` : ""}` : String(e);
    return { status: "timeout", ms: performance.now() - started, error };
  }
}

/** Asks until the session reads back again, for at most 10 s scaled to the machine. */
async function recovers(url: string, cookie: string): Promise<unknown> {
  const deadline = performance.now() + 10_000 * inject("timeScale");
  let last: Awaited<ReturnType<typeof timedGet>> | undefined;
  while (performance.now() < deadline) {
    last = await timedGet(url, cookie);
    if (last.status === 200 && last.body) return last.body;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`never recovered; the last answer: ${JSON.stringify(last)}`);
}

describe("PostgreSQL behind a faulty link", () => {
  const database = `latchkey_faults_${process.pid}_${randomBytes(4).toString("hex")}`;
  let up = false;
  let admin: pg.Client;
  let proxy: TcpProxy;
  let direct: Adapter;
  let directDb: Awaited<ReturnType<typeof openDatabase>>;
  let proxiedDb: Awaited<ReturnType<typeof openDatabase>>;
  let server: Awaited<ReturnType<typeof listen>>;

  beforeAll(async () => {
    up = await serviceAvailable("PostgreSQL", 5432);
    if (!up) return;
    admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    directDb = await openDatabase(`postgres://postgres@127.0.0.1:5432/${database}`);
    await migrate(directDb);
    direct = SqlAdapter(directDb);
    proxy = await startTcpProxy(5432);
    proxiedDb = await openDatabase(`postgres://postgres@127.0.0.1:${proxy.port}/${database}`);
    server = await app(SqlAdapter(proxiedDb));
  });
  afterAll(async () => {
    if (!up) return;
    await proxy.setMode("pass");
    await server?.close();
    await proxiedDb?.destroy().catch(() => {});
    await proxy?.close();
    await directDb?.destroy();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  });

  it("slow (200 ms per packet): the session is read, just later", async (t) => {
    if (!up) return t.skip();
    const cookie = await seedSession(direct);
    await proxy.setMode("delay");
    const r = await timedGet(`${server.url}/auth/session`, cookie);
    await proxy.setMode("pass");
    expect(r.status, JSON.stringify(r)).toBe(200);
    expect(r.body).toMatchObject({ user: { email: expect.stringMatching(/@example\.com$/) } });
    expect(r.ms).toBeLessThan(BOUND_MS);
  });

  it("connections reset mid-run: bounded answers, no crash, the session is intact afterwards", async (t) => {
    if (!up) return t.skip();
    const cookie = await seedSession(direct);
    await recovers(`${server.url}/auth/session`, cookie);
    proxy.resetAll();
    const during = await Promise.all([0, 1, 2].map(() => timedGet(`${server.url}/auth/session`, cookie)));
    for (const r of during) {
      expect(r.status === 200 || r.status === 500, `got ${r.status}`).toBe(true);
      expect(r.ms).toBeLessThan(BOUND_MS);
    }
    expect(await recovers(`${server.url}/auth/session`, cookie)).toMatchObject({ user: {} });
  });

  it("down (connection refused): 500 within the bound, getSession treats it as signed out, full recovery", async (t) => {
    if (!up) return t.skip();
    const cookie = await seedSession(direct);
    await recovers(`${server.url}/auth/session`, cookie);
    await proxy.setMode("refuse");
    const r = await timedGet(`${server.url}/auth/session`, cookie);
    expect(r.status).toBe(500);
    expect(r.ms).toBeLessThan(BOUND_MS);
    const me = await timedGet(`${server.url}/me`, cookie);
    expect(me).toMatchObject({ status: 200, body: null });
    await proxy.setMode("pass");
    expect(await recovers(`${server.url}/auth/session`, cookie)).toMatchObject({ user: {} });
  });

  it("a black hole (packets dropped, connections stay open): a bounded answer, not a hang", async (t) => {
    if (!up) return t.skip();
    const cookie = await seedSession(direct);
    await recovers(`${server.url}/auth/session`, cookie);
    await proxy.setMode("blackhole");
    const r = await timedGet(`${server.url}/auth/session`, cookie);
    await proxy.setMode("pass");
    proxy.resetAll();
    expect(r.status, `answered ${r.status} after ${Math.round(r.ms)} ms`).not.toBe("timeout");
    expect(r.ms).toBeLessThan(BOUND_MS);
  });
});

describe("Redis behind a faulty link", () => {
  const prefix = `latchkey-faults:${process.pid}:${randomBytes(4).toString("hex")}:`;
  let up = false;
  let proxy: TcpProxy;
  let client: Redis;
  let direct: Redis;
  let server: Awaited<ReturnType<typeof listen>>;

  beforeAll(async () => {
    up = await serviceAvailable("Redis", 6379);
    if (!up) return;
    proxy = await startTcpProxy(6379);
    // ioredis as an application would create it: default options
    client = new Redis({ host: "127.0.0.1", port: proxy.port });
    client.on("error", () => {});
    direct = new Redis({ host: "127.0.0.1", port: 6379 });
    server = await app(RedisAdapter(client, { prefix }));
  });
  afterAll(async () => {
    if (!up) return;
    await proxy.setMode("pass");
    await server?.close();
    client?.disconnect();
    await proxy?.close();
    const keys = await direct.keys(`${prefix}*`);
    if (keys.length) await direct.del(...keys);
    direct.disconnect();
  });

  it("Redis unreachable mid-run: GET /auth/session gets a bounded answer, then full recovery", async (t) => {
    if (!up) return t.skip();
    const cookie = await seedSession(RedisAdapter(direct, { prefix }));
    expect(await recovers(`${server.url}/auth/session`, cookie)).toMatchObject({ user: {} });
    await proxy.setMode("refuse");
    const r = await timedGet(`${server.url}/auth/session`, cookie);
    await proxy.setMode("pass");
    expect(r.status, `answered ${r.status} after ${Math.round(r.ms)} ms`).not.toBe("timeout");
    expect(r.ms).toBeLessThan(BOUND_MS);
    expect(await recovers(`${server.url}/auth/session`, cookie)).toMatchObject({ user: {} });
  });

  it("Redis black-holed mid-run: a bounded answer, not a hang", async (t) => {
    if (!up) return t.skip();
    const cookie = await seedSession(RedisAdapter(direct, { prefix }));
    await recovers(`${server.url}/auth/session`, cookie);
    await proxy.setMode("blackhole");
    const r = await timedGet(`${server.url}/auth/session`, cookie);
    await proxy.setMode("pass");
    proxy.resetAll();
    expect(r.status, `answered ${r.status} after ${Math.round(r.ms)} ms`).not.toBe("timeout");
    expect(r.ms).toBeLessThan(BOUND_MS);
  });
});
