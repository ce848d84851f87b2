/**
 * One benchmark server, run as a child process of bench/run.mjs (or of the harness test) with an
 * IPC channel. `BENCH_APP` picks the app:
 *
 *   bare               Express with the bare route only
 *   latchkey           + Latchkey (`app.use("/auth", ExpressAuth(config))`, `getSession` on /me), JWT sessions
 *   authjs             + Auth.js   (`app.use("/auth/*", ExpressAuth(config))`, its `getSession` on /me), JWT sessions
 *   latchkey-sqlite    Latchkey with database sessions through @latchkey/sql-adapter on a SQLite file
 *   latchkey-postgres  the same on PostgreSQL at 127.0.0.1:5432 (a throw-away database, dropped on exit)
 *   latchkey-postgres-cache  `latchkey-postgres` with `session.cache`, its channel a SqlRevocationStore
 *                      on LISTEN/NOTIFY (a pool of its own: its heartbeat is not counted as a query)
 *   authjs-postgres    Auth.js with database sessions through @auth/pg-adapter on PostgreSQL (the
 *                      schema of its documentation, plus an index on "sessionToken")
 *   latchkey-revocation  `latchkey` with `session.revocation` on a Redis store at 127.0.0.1:6379
 *   latchkey-organizations  `latchkey` with `organizations` (a memory store holding one organization
 *                      Ada owns, whose id goes to the parent as `organizationId`)
 *   latchkey-postgres-credentials  `latchkey`'s credentials provider with `databaseSessions: true` on
 *                      the PostgreSQL setup of `latchkey-postgres`, over 5,000 stored users: every
 *                      sign-in finds its user by account, stores a session row and keeps the user's
 *                      sessions within `session.maxPerUser`
 *   hono-bare, fastify-bare  Hono (on @hono/node-server) or Fastify with the bare route only
 *   hono, fastify      + Latchkey through @latchkey/hono or @latchkey/fastify (the actions under /auth,
 *                      `getSession` on /me, `requireAuth` on /protected), JWT sessions
 *   sveltekit-bare, sveltekit  the SvelteKit demo's build (examples/sveltekit-demo, adapter-node) with
 *                      this configuration: /bare (a route reading no session), and for `sveltekit` /api/me
 *                      (`event.locals.auth()`) and /api/protected (the session or a redirect); the
 *                      `handle` hook runs on every request of both
 *
 * Every app is Express 4 (`express4`): @auth/express 0.12 derives its base path from `req.params[0]`,
 * which Express 5's `/auth/*splat` mounts do not set, so Express 4 is the one both libraries run on
 * unchanged. Same secret, same credentials provider, same silent logger (that counts errors).
 *
 * It listens on 127.0.0.1, port 0, and sends `{ type: "ready", port, sessionToken? }` to the
 * parent. It answers IPC messages `{ id, op }`:
 *   stats  → { now, cpu: process.cpuUsage(), requests, errors, heapUsed, queries } (queries: the
 *            statements the app's PostgreSQL pool ran, counted on each of its connections)
 *   gc     → runs the collector (the process is started with --expose-gc) → { heapUsed }
 *   exit   → closes the server (and the database), then exits, so --cpu-prof writes its profile.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import express from "express4";

import { SECRET } from "./secret.mjs";

const app = process.env.BENCH_APP ?? "bare";
let errors = 0;
const logger = {
  error() {
    errors++;
  },
  warn() {},
  debug() {},
};

const authorize = async (credentials) =>
  credentials.username === "ada" && credentials.password === "lovelace"
    ? { id: "u1", name: "Ada Lovelace", email: "ada@example.com" }
    : null;
/** The users the `latchkey-postgres-credentials` app stores, whom the `credentials-postgres` case signs in in turn. */
const BENCH_USERS = 5000;
const credentialsFields = {
  username: { label: "Username" },
  password: { label: "Password", type: "password" },
};

const cleanups = [];

// The PostgreSQL schema of @auth/pg-adapter's documentation, with an index on the session token.
const AUTHJS_SCHEMA = `
CREATE TABLE verification_token (identifier TEXT NOT NULL, expires TIMESTAMPTZ NOT NULL, token TEXT NOT NULL, PRIMARY KEY (identifier, token));
CREATE TABLE accounts (id SERIAL, "userId" INTEGER NOT NULL, type VARCHAR(255) NOT NULL, provider VARCHAR(255) NOT NULL,
  "providerAccountId" VARCHAR(255) NOT NULL, refresh_token TEXT, access_token TEXT, expires_at BIGINT, id_token TEXT,
  scope TEXT, session_state TEXT, token_type TEXT, PRIMARY KEY (id));
CREATE TABLE sessions (id SERIAL, "userId" INTEGER NOT NULL, expires TIMESTAMPTZ NOT NULL, "sessionToken" VARCHAR(255) NOT NULL, PRIMARY KEY (id));
CREATE INDEX sessions_token_idx ON sessions ("sessionToken");
CREATE TABLE users (id SERIAL, name VARCHAR(255), email VARCHAR(255), "emailVerified" TIMESTAMPTZ, image TEXT, PRIMARY KEY (id));`;

const ready = { type: "ready" };
const web = express();
web.get("/bare", (_req, res) => {
  res.json({ ok: true });
});
/** What serves the requests: Express, or another framework's Node request listener. */
let listener = web;
/** Called with the port once listening, before `ready` (SvelteKit's handler needs its ORIGIN). */
let onListening = async (_port) => {};
/** The configuration of the apps of the framework packages (the same as `latchkey`'s). */
const frameworkConfig = async (module) => ({
  secret: SECRET,
  trustHost: true,
  logger,
  providers: [(await import(`${module}/providers/credentials`)).default({ credentials: credentialsFields, authorize })],
  rateLimit: {
    credentialsPerIp: { max: 1e12, windowSeconds: 900 },
    credentialsPerIdentifierAndIp: { max: 1e12, windowSeconds: 900 },
    credentialsPerIdentifier: { max: 1e12, windowSeconds: 900 },
  },
});

/** Statements run on the database pool of the PostgreSQL apps (what "queries per 1,000 reads" counts); undefined elsewhere. */
let queries;
const latchkeyApps = [
  "latchkey",
  "latchkey-sqlite",
  "latchkey-postgres",
  "latchkey-postgres-cache",
  "latchkey-revocation",
  "latchkey-organizations",
];
if (latchkeyApps.includes(app)) {
  const { ExpressAuth, getSession } = await import("@latchkey/express");
  const { default: Credentials } = await import("@latchkey/express/providers/credentials");
  const config = {
    secret: SECRET,
    trustHost: true,
    logger,
    providers: [Credentials({ credentials: credentialsFields, authorize })],
    // Latchkey limits credentials attempts per client IP (100 per 15 minutes by default; Auth.js
    // has no limiter), and reserves each attempt on the identifier's counters while authorize()
    // runs, so at most 5 sign-ins of one account from one address are in flight at once. The
    // limits are raised, not turned off, so the sign-in case still pays for the counting (three
    // increments and two give-backs) that the default configuration does.
    rateLimit: {
      credentialsPerIp: { max: 1e12, windowSeconds: 900 },
      credentialsPerIdentifierAndIp: { max: 1e12, windowSeconds: 900 },
      credentialsPerIdentifier: { max: 1e12, windowSeconds: 900 },
    },
  };
  if (app === "latchkey-revocation") config.session = { revocation: { store: await revocationStore() } };
  if (app === "latchkey-organizations") {
    const { builtInRoles, defineRoles, MemoryOrganizationStore, Organizations } = await import(
      "@latchkey/core/organizations"
    );
    const organizations = { store: MemoryOrganizationStore(), roles: defineRoles(builtInRoles) };
    config.organizations = organizations;
    const made = await Organizations(config, organizations).create("u1", { name: "Bench", slug: "bench" });
    if (!made.ok) throw new Error(`bench: no organization made (${made.reason})`);
    ready.organizationId = made.value.id;
  }
  if (!["latchkey", "latchkey-revocation", "latchkey-organizations"].includes(app)) {
    // Credentials sign-in works with JWT sessions only (as in Auth.js), so the database apps get
    // an OAuth provider instead; it is never contacted: the session row is made through the adapter.
    const { default: GitHub } = await import("@latchkey/express/providers/github");
    config.providers = [GitHub({ clientId: "bench", clientSecret: "bench" })];
    const { adapter, sessionToken, channel } = await databaseSessions(
      app === "latchkey-sqlite" ? "sqlite" : "postgres",
      app === "latchkey-postgres-cache",
    );
    config.adapter = adapter;
    config.session = { strategy: "database", ...(channel && { cache: { channel } }) };
    ready.sessionToken = sessionToken;
  }
  web.use("/auth", ExpressAuth(config));
  web.get("/me", async (req, res, next) => {
    try {
      res.json(await getSession(req, config));
    } catch (e) {
      next(e);
    }
  });
  const { requireAuth } = await import("@latchkey/express");
  web.get("/protected", requireAuth(config), (_req, res) => {
    res.json({ email: res.locals.session.user.email });
  });
  // An API key of Ada's, made once; the route checks it and a scope on every request.
  const { ApiKeys, MemoryApiKeyStore, verifyApiKey } = await import("@latchkey/core/api-keys");
  const keys = ApiKeys(config, { store: MemoryApiKeyStore(), userScopes: ["reports:read"] });
  const made = await keys.create("u1", { name: "bench", scopes: ["reports:read"] });
  if (!made.ok) throw new Error(`bench: no API key made (${made.reason})`);
  ready.apiKey = made.value.key;
  web.get("/api-key", async (req, res, next) => {
    try {
      const check = await verifyApiKey(req, keys, { scopes: ["reports:read"] });
      if (!check.ok) return void res.status(check.status).set(check.headers).json(check.body);
      res.json({ owner: check.key.owner });
    } catch (e) {
      next(e);
    }
  });
} else if (app === "hono" || app === "hono-bare") {
  const { Hono } = await import("hono");
  const { getRequestListener } = await import("@hono/node-server");
  const hono = new Hono();
  hono.get("/bare", (c) => c.json({ ok: true }));
  if (app === "hono") {
    const { HonoAuth, getSession, requireAuth } = await import("@latchkey/hono");
    const config = await frameworkConfig("@latchkey/hono");
    hono.use("/auth/*", HonoAuth(config));
    hono.get("/me", async (c) => c.json(await getSession(c, config)));
    hono.get("/protected", requireAuth(config), (c) => c.json({ email: c.get("session").user.email }));
  }
  listener = getRequestListener(hono.fetch);
} else if (app === "sveltekit" || app === "sveltekit-bare") {
  const config = await frameworkConfig("@latchkey/sveltekit");
  let handler = () => {
    throw new Error("the SvelteKit handler is loaded once listening");
  };
  onListening = async (port) => {
    process.env.ORIGIN = `http://127.0.0.1:${port}`; // adapter-node reads it when its handler loads
    const built = new URL("../examples/sveltekit-demo/build/handler.js", import.meta.url);
    handler = (await import(built.href)).handler;
  };
  listener = (req, res) => {
    req.latchkeyDemo = { config };
    handler(req, res);
  };
} else if (app === "fastify" || app === "fastify-bare") {
  const { default: Fastify } = await import("fastify");
  const fastify = Fastify({ logger: false });
  fastify.get("/bare", async () => ({ ok: true }));
  if (app === "fastify") {
    const { default: latchkey, getSession } = await import("@latchkey/fastify");
    await fastify.register(latchkey, { prefix: "/auth", ...(await frameworkConfig("@latchkey/fastify")) });
    fastify.get("/me", async (request) => await getSession(request));
    fastify.get("/protected", { preHandler: fastify.requireAuth() }, async (request) => ({
      email: request.session.user.email,
    }));
  }
  await fastify.ready();
  listener = fastify.routing;
} else if (app === "authjs-postgres") {
  const { ExpressAuth } = await import("@auth/express");
  const { default: GitHub } = await import("@auth/express/providers/github");
  const { default: PostgresAdapter } = await import("@auth/pg-adapter");
  const pool = await throwAwayPostgres();
  await pool.query(AUTHJS_SCHEMA);
  const adapter = PostgresAdapter(pool);
  const user = await adapter.createUser({ name: "Ada Lovelace", email: "ada@example.com", emailVerified: null });
  const sessionToken = randomBytes(32).toString("hex");
  await adapter.createSession({ sessionToken, userId: user.id, expires: new Date(Date.now() + 30 * 24 * 3600 * 1000) });
  ready.sessionToken = sessionToken;
  queries = 0;
  const config = {
    secret: SECRET,
    trustHost: true,
    logger,
    adapter,
    session: { strategy: "database" },
    providers: [GitHub({ clientId: "bench", clientSecret: "bench" })],
  };
  web.use("/auth/*", ExpressAuth(config));
} else if (app === "authjs") {
  const { ExpressAuth, getSession } = await import("@auth/express");
  const { default: Credentials } = await import("@auth/express/providers/credentials");
  const config = {
    secret: SECRET,
    trustHost: true,
    logger,
    providers: [Credentials({ credentials: credentialsFields, authorize })],
  };
  web.use("/auth/*", ExpressAuth(config));
  web.get("/me", async (req, res, next) => {
    try {
      res.json(await getSession(req, config));
    } catch (e) {
      next(e);
    }
  });
} else if (app === "latchkey-postgres-credentials") {
  const { ExpressAuth } = await import("@latchkey/express");
  const { default: Credentials } = await import("@latchkey/express/providers/credentials");
  // Credentials sign-in onto a database session (the provider's opt-in), the user found by its
  // account. The sign-ins rotate over BENCH_USERS users stored beforehand (as their sign-ups
  // would have), so each user holds a few sessions, as users do, not thousands.
  const { adapter } = await databaseSessions("postgres");
  for (let from = 1; from <= BENCH_USERS; from += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, BENCH_USERS - from + 1) }, async (_, i) => {
        const id = `user-${from + i}`;
        await adapter.createUser({ id, name: `User ${from + i}`, email: `${id}@example.com`, emailVerified: null });
        await adapter.linkAccount({
          userId: id,
          type: "credentials",
          provider: "credentials",
          providerAccountId: id,
        });
      }),
    );
  }
  const authorizeStored = async (credentials) =>
    /^user-\d+$/.test(credentials.username) && credentials.password === "lovelace"
      ? {
          id: credentials.username,
          name: `User ${credentials.username.slice(5)}`,
          email: `${credentials.username}@example.com`,
        }
      : authorize(credentials);
  // The same limits as `latchkey` (raised, still counted).
  const config = {
    secret: SECRET,
    trustHost: true,
    logger,
    providers: [Credentials({ credentials: credentialsFields, authorize: authorizeStored, databaseSessions: true })],
    adapter,
    session: { strategy: "database" },
    rateLimit: {
      credentialsPerIp: { max: 1e12, windowSeconds: 900 },
      credentialsPerIdentifierAndIp: { max: 1e12, windowSeconds: 900 },
      credentialsPerIdentifier: { max: 1e12, windowSeconds: 900 },
    },
  };
  web.use("/auth", ExpressAuth(config));
} else if (app !== "bare") {
  throw new Error(`unknown BENCH_APP "${app}"`);
}

/**
 * The revocation list of the `latchkey-revocation` app: in Redis at 127.0.0.1:6379 (a throw-away
 * key prefix, deleted on exit), holding 1,000 revoked sessions and 1,000 users with a "revoked
 * before" time, none of them the tokens the cases send, so every read looks up a non-empty list.
 */
async function revocationStore() {
  const { Redis } = await import("ioredis");
  const { RedisRevocationStore } = await import("@latchkey/redis-adapter");
  const prefix = `latchkey-bench:${randomBytes(6).toString("hex")}:`;
  const client = new Redis({ host: "127.0.0.1", port: 6379 });
  const subscriber = new Redis({ host: "127.0.0.1", port: 6379 });
  const store = RedisRevocationStore(client, subscriber, {
    prefix: `${prefix}revoked:`,
    channel: `${prefix}revocations`,
  });
  const now = Date.now();
  const expiresAt = now + 3600_000;
  for (let i = 0; i < 1000; i++) {
    await store.add({ kind: "session", id: `revoked-session-${i}`, before: now, expiresAt });
    await store.add({ kind: "user", id: `revoked-user-${i}`, before: now, expiresAt });
  }
  cleanups.push(async () => {
    await store.close();
    const keys = await client.keys(`${prefix}*`);
    if (keys.length) await client.del(...keys);
    client.disconnect();
    subscriber.disconnect();
  });
  return store;
}

/**
 * A throw-away PostgreSQL database (dropped on exit) and a pool of 10 on it whose statements are
 * counted in `queries` (every connection's `query`, whoever calls it: Kysely or @auth/pg-adapter).
 */
async function throwAwayPostgres() {
  const { default: pg } = await import("pg");
  const name = `latchkey_bench_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const pool = new pg.Pool({ host: "127.0.0.1", port: 5432, user: "postgres", database: name, max: 10 });
  queries = 0;
  pool.on("connect", (client) => {
    const query = client.query.bind(client);
    client.query = (...args) => {
      queries++;
      return query(...args);
    };
  });
  cleanups.push(async () => {
    await pool.end().catch(() => {});
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });
  return Object.assign(pool, { databaseName: name });
}

/**
 * A migrated database, an adapter over it, and one user with one session row made through it;
 * with `cache`, the channel of `session.cache` (LISTEN/NOTIFY on a pool of its own).
 */
async function databaseSessions(dialect, cache = false) {
  const { SqlAdapter, migrate } = await import("@latchkey/sql-adapter");
  const { Kysely, PostgresDialect, SqliteDialect } = await import("kysely");
  let db;
  let channel;
  if (dialect === "sqlite") {
    const { default: Database } = await import("better-sqlite3");
    const dir = mkdtempSync(join(tmpdir(), "latchkey-bench-"));
    const sqlite = new Database(join(dir, "auth.db"));
    sqlite.pragma("journal_mode = WAL");
    db = new Kysely({ dialect: new SqliteDialect({ database: sqlite }) });
    cleanups.push(async () => {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    });
  } else {
    const pool = await throwAwayPostgres();
    // Not destroyed: the cleanup of throwAwayPostgres ends the pool, then drops the database.
    db = new Kysely({ dialect: new PostgresDialect({ pool }) });
    if (cache) {
      const { default: pg } = await import("pg");
      const listen = new pg.Pool({
        host: "127.0.0.1",
        port: 5432,
        user: "postgres",
        database: pool.databaseName,
        max: 1,
      });
      const { SqlRevocationStore } = await import("@latchkey/sql-adapter");
      channel = SqlRevocationStore(db, { listen });
      cleanups.unshift(async () => {
        await channel.close();
        await listen.end();
      });
    }
  }
  await migrate(db);
  const adapter = SqlAdapter(db);
  const user = await adapter.createUser({
    id: "u1",
    name: "Ada Lovelace",
    email: "ada@example.com",
    emailVerified: null,
  });
  const sessionToken = randomBytes(32).toString("hex");
  await adapter.createSession({
    sessionToken,
    userId: user.id,
    expires: new Date(Date.now() + 30 * 24 * 3600 * 1000),
  });
  // The sign-in's own statements are not the reads the cases count.
  if (queries !== undefined) queries = 0;
  return { adapter, sessionToken, channel };
}

let requests = 0;
const server = createServer(listener).listen(0, "127.0.0.1", async () => {
  ready.port = server.address().port;
  await onListening(ready.port);
  send(ready);
});
server.keepAliveTimeout = 30_000;
server.on("request", () => {
  requests++;
});

function send(message) {
  if (process.send) process.send(message);
  else console.log(JSON.stringify(message));
}

function collect() {
  // Two passes: the first may leave finalizable objects for the second.
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
}

let exiting = false;
async function exit(code) {
  if (exiting) return;
  exiting = true;
  server.closeAllConnections?.();
  await new Promise((resolve) => server.close(() => resolve()));
  for (const cleanup of cleanups) await cleanup().catch((e) => console.error(e));
  process.exit(code);
}

process.on("message", (message) => {
  const { id, op } = message ?? {};
  if (op === "stats") {
    // `now` is on the monotonic clock V8's profiler stamps its samples with (µs).
    const now = Number(process.hrtime.bigint() / 1000n);
    send({ id, now, cpu: process.cpuUsage(), requests, errors, heapUsed: process.memoryUsage().heapUsed, queries });
  } else if (op === "gc") {
    send({ id, heapUsed: collect(), gc: typeof globalThis.gc === "function" });
  } else if (op === "exit") {
    void exit(0);
  }
});
// The parent went away: do not linger.
process.on("disconnect", () => void exit(0));
process.on("SIGTERM", () => void exit(0));
