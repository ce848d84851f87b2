/**
 * Auth.js's own database adapters over a scratch PostgreSQL database each: `@auth/drizzle-adapter`
 * (its default PostgreSQL tables), `@auth/pg-adapter` (the schema its documentation gives) and
 * `@auth/prisma-adapter` (Prisma 7's generated client over `@prisma/adapter-pg`). The tables are
 * created here with the columns and keys those packages document, as an application that used
 * them has them; nothing of Latchkey's is added.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { DrizzleAdapter } from "@auth/drizzle-adapter";
import PostgresAdapter from "@auth/pg-adapter";
import { PrismaAdapter } from "@auth/prisma-adapter";
import { PrismaPg } from "@prisma/adapter-pg";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import type { RecordKind, StorageProbe } from "../../../adapter-test/src/index.js";
import { toleratesForcedDrop } from "../../../adapter-test/src/services.js";
import type { Adapter } from "../../src/adapters.js";

/** The default PostgreSQL tables of `@auth/drizzle-adapter` (what `drizzle-kit push` makes of them). */
const DRIZZLE_TABLES = `
  CREATE TABLE "user" (
    id text PRIMARY KEY,
    name text,
    email text UNIQUE,
    "emailVerified" timestamp,
    image text
  );
  CREATE TABLE account (
    "userId" text NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
    type text NOT NULL,
    provider text NOT NULL,
    "providerAccountId" text NOT NULL,
    refresh_token text,
    access_token text,
    expires_at integer,
    token_type text,
    scope text,
    id_token text,
    session_state text,
    PRIMARY KEY (provider, "providerAccountId")
  );
  CREATE TABLE session (
    "sessionToken" text PRIMARY KEY,
    "userId" text NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
    expires timestamp NOT NULL
  );
  CREATE TABLE "verificationToken" (
    identifier text NOT NULL,
    token text NOT NULL,
    expires timestamp NOT NULL,
    PRIMARY KEY (identifier, token)
  );
  CREATE TABLE authenticator (
    "credentialID" text NOT NULL UNIQUE,
    "userId" text NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
    "providerAccountId" text NOT NULL,
    "credentialPublicKey" text NOT NULL,
    counter integer NOT NULL,
    "credentialDeviceType" text NOT NULL,
    "credentialBackedUp" boolean NOT NULL,
    transports text,
    PRIMARY KEY ("userId", "credentialID")
  );
`;

/** The schema `@auth/pg-adapter` documents: SERIAL ids, no unique keys, no foreign keys. */
const PG_ADAPTER_TABLES = `
  CREATE TABLE verification_token (
    identifier TEXT NOT NULL,
    expires TIMESTAMPTZ NOT NULL,
    token TEXT NOT NULL,
    PRIMARY KEY (identifier, token)
  );
  CREATE TABLE accounts (
    id SERIAL PRIMARY KEY,
    "userId" INTEGER NOT NULL,
    type VARCHAR(255) NOT NULL,
    provider VARCHAR(255) NOT NULL,
    "providerAccountId" VARCHAR(255) NOT NULL,
    refresh_token TEXT,
    access_token TEXT,
    expires_at BIGINT,
    id_token TEXT,
    scope TEXT,
    session_state TEXT,
    token_type TEXT
  );
  CREATE TABLE sessions (
    id SERIAL PRIMARY KEY,
    "userId" INTEGER NOT NULL,
    expires TIMESTAMPTZ NOT NULL,
    "sessionToken" VARCHAR(255) NOT NULL
  );
  CREATE TABLE users (
    id SERIAL PRIMARY KEY,
    name VARCHAR(255),
    email VARCHAR(255),
    "emailVerified" TIMESTAMPTZ,
    image TEXT
  );
`;

/**
 * The tables `prisma db push` makes of prisma/schema.prisma on PostgreSQL (Prisma's names: the
 * models' and fields' own, `TIMESTAMP(3)` for `DateTime`). Written out because `db push` needs
 * Prisma's schema engine, which is downloaded from Prisma's server, not the npm registry.
 */
const PRISMA_TABLES = `
  CREATE TABLE "User" (
    id TEXT PRIMARY KEY,
    name TEXT,
    email TEXT UNIQUE,
    "emailVerified" TIMESTAMP(3),
    image TEXT
  );
  CREATE TABLE "Account" (
    "userId" TEXT NOT NULL REFERENCES "User"(id) ON DELETE CASCADE ON UPDATE CASCADE,
    type TEXT NOT NULL,
    provider TEXT NOT NULL,
    "providerAccountId" TEXT NOT NULL,
    refresh_token TEXT,
    access_token TEXT,
    expires_at INTEGER,
    token_type TEXT,
    scope TEXT,
    id_token TEXT,
    session_state TEXT,
    PRIMARY KEY (provider, "providerAccountId")
  );
  CREATE TABLE "Session" (
    "sessionToken" TEXT NOT NULL UNIQUE,
    "userId" TEXT NOT NULL REFERENCES "User"(id) ON DELETE CASCADE ON UPDATE CASCADE,
    expires TIMESTAMP(3) NOT NULL
  );
  CREATE TABLE "VerificationToken" (
    identifier TEXT NOT NULL,
    token TEXT NOT NULL,
    expires TIMESTAMP(3) NOT NULL,
    PRIMARY KEY (identifier, token)
  );
  CREATE TABLE "Authenticator" (
    "credentialID" TEXT NOT NULL UNIQUE,
    "userId" TEXT NOT NULL REFERENCES "User"(id) ON DELETE CASCADE ON UPDATE CASCADE,
    "providerAccountId" TEXT NOT NULL,
    "credentialPublicKey" TEXT NOT NULL,
    counter INTEGER NOT NULL,
    "credentialDeviceType" TEXT NOT NULL,
    "credentialBackedUp" BOOLEAN NOT NULL,
    transports TEXT,
    PRIMARY KEY ("userId", "credentialID")
  );
`;

/** An Auth.js adapter over its own scratch database, with direct reads of the tables. */
export interface AuthjsAdapterFixture {
  adapter: Adapter;
  probe: StorageProbe;
  /** A connection pool of the scratch database, for the tests' own queries. */
  pool: pg.Pool;
  /** Closes the connections and drops the database. */
  teardown(): Promise<void>;
}

/** A new, empty PostgreSQL database with `tables` in it; dropped by `drop()`. */
async function scratchDatabase(tables: string): Promise<{ pool: pg.Pool; url: string; drop(): Promise<void> }> {
  const name = `authjs_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const pool = toleratesForcedDrop(
    new pg.Pool({ host: "127.0.0.1", port: 5432, user: "postgres", database: name, max: 10 }),
  );
  await pool.query(tables);
  return {
    pool,
    url: `postgresql://postgres@127.0.0.1:5432/${name}`,
    async drop() {
      await pool.end();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** Reads of the tables: which of a kind of record exist, and how many rows name a user. */
function probeOf(
  pool: pg.Pool,
  tables: { user: string; account: string; session: string; verificationToken: string; authenticator?: string },
): StorageProbe {
  const where: Record<RecordKind, [table: string | undefined, columns: string[]]> = {
    user: [tables.user, ["id"]],
    account: [tables.account, ["provider", "providerAccountId"]],
    session: [tables.session, ["sessionToken"]],
    verificationToken: [tables.verificationToken, ["identifier", "token"]],
    authenticator: [tables.authenticator, ["credentialID"]],
  };
  return {
    async exists(kind, ...key) {
      const [table, columns] = where[kind];
      if (!table) return false;
      const condition = columns.map((column, i) => `"${column}"::text = $${i + 1}`).join(" AND ");
      const { rowCount } = await pool.query(`SELECT 1 FROM ${table} WHERE ${condition}`, key);
      return (rowCount ?? 0) > 0;
    },
    async recordsOf(userId) {
      let count = 0;
      for (const [kind, [table]] of Object.entries(where)) {
        if (!table || kind === "verificationToken") continue;
        const column = kind === "user" ? "id" : "userId";
        const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE "${column}"::text = $1`, [
          userId,
        ]);
        count += (rows[0] as { n: number }).n;
      }
      return count;
    },
  };
}

/** `@auth/drizzle-adapter` 1.11 with its default PostgreSQL tables, over node-postgres. */
export async function drizzleAdapterFixture(): Promise<AuthjsAdapterFixture> {
  const { pool, drop } = await scratchDatabase(DRIZZLE_TABLES);
  return {
    adapter: DrizzleAdapter(drizzle(pool)) as Adapter,
    probe: probeOf(pool, {
      user: `"user"`,
      account: "account",
      session: "session",
      verificationToken: `"verificationToken"`,
      authenticator: "authenticator",
    }),
    pool,
    teardown: drop,
  };
}

/** `@auth/pg-adapter` 1.11 with the schema of its documentation. */
export async function pgAdapterFixture(): Promise<AuthjsAdapterFixture> {
  const { pool, drop } = await scratchDatabase(PG_ADAPTER_TABLES);
  return {
    adapter: PostgresAdapter(pool) as Adapter,
    probe: probeOf(pool, {
      user: "users",
      account: "accounts",
      session: "sessions",
      verificationToken: "verification_token",
    }),
    pool,
    teardown: drop,
  };
}

const prismaSchema = fileURLToPath(new URL("./prisma/schema.prisma", import.meta.url));
const prismaClient = fileURLToPath(new URL("./prisma/generated/index.js", import.meta.url));

/**
 * Generates the Prisma client of prisma/schema.prisma (when missing or older than the schema).
 * `prisma generate` runs on the WebAssembly of the npm package; the `prisma` command still fetches
 * its native schema engine from Prisma's server at start, which `PRISMA_SCHEMA_ENGINE_BINARY`
 * (pointing at any file: `generate` never runs it) skips, so that only the npm registry is needed.
 */
function generatePrismaClient(): void {
  if (existsSync(prismaClient) && statSync(prismaClient).mtimeMs >= statSync(prismaSchema).mtimeMs) return;
  const cli = createRequire(import.meta.url).resolve("prisma/build/index.js");
  execFileSync(process.execPath, [cli, "generate", "--schema", prismaSchema], {
    env: {
      ...process.env,
      PRISMA_SCHEMA_ENGINE_BINARY: prismaSchema,
      PRISMA_HIDE_UPDATE_MESSAGE: "1",
      CHECKPOINT_DISABLE: "1",
    },
    stdio: "pipe",
  });
}

type PrismaClientLike = { $disconnect(): Promise<void> };

/** `@auth/prisma-adapter` 2.11 over a Prisma 7 client (no Rust engine: `@prisma/adapter-pg`). */
export async function prismaAdapterFixture(): Promise<AuthjsAdapterFixture> {
  generatePrismaClient();
  const { PrismaClient } = createRequire(import.meta.url)(prismaClient) as {
    PrismaClient: new (options: { adapter: PrismaPg }) => PrismaClientLike;
  };
  const { pool, url, drop } = await scratchDatabase(PRISMA_TABLES);
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) });
  return {
    adapter: PrismaAdapter(prisma as never) as Adapter,
    probe: probeOf(pool, {
      user: `"User"`,
      account: `"Account"`,
      session: `"Session"`,
      verificationToken: `"VerificationToken"`,
      authenticator: `"Authenticator"`,
    }),
    pool,
    async teardown() {
      await prisma.$disconnect();
      await drop();
    },
  };
}
