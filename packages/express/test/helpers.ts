import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { migrate } from "@latchkey/sql-adapter";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { serviceAvailable } from "../../adapter-test/src/services.js";

/** Starts `app` on 127.0.0.1, port 0; returns its base URL and a closer. */
export async function listen(app: {
  listen: (port: number, host: string, cb: () => void) => Server;
}): Promise<{ url: string; close: () => Promise<void> }> {
  let server!: Server;
  await new Promise<void>((resolve) => {
    server = app.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A cookie jar for fetch: applies Set-Cookie (deletions included), sends Cookie. */
export class Jar {
  readonly cookies = new Map<string, string>();
  apply(response: Response): Response {
    for (const header of response.headers.getSetCookie()) {
      const [pair, ...attributes] = header.split(";");
      const eq = (pair as string).indexOf("=");
      const name = (pair as string).slice(0, eq).trim();
      const value = (pair as string).slice(eq + 1).trim();
      if (value === "" || attributes.some((a) => /^\s*max-age=0\s*$/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  async fetch(url: string, init: RequestInit & { form?: Record<string, string> } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set("cookie", this.header());
    let body = init.body;
    if (init.form) {
      headers.set("content-type", "application/x-www-form-urlencoded");
      body = new URLSearchParams(init.form).toString();
    }
    return this.apply(
      await fetch(url, { ...init, body, headers, redirect: "manual", method: init.method ?? (body ? "POST" : "GET") }),
    );
  }
}

/**
 * A fresh PostgreSQL database on 127.0.0.1:5432 named `<prefix>_<random>`, migrated for the SQL
 * adapter; `drop` closes the pool and drops it. Null when PostgreSQL does not answer.
 */
export async function migratedPostgres(prefix: string): Promise<{
  db: Kysely<Record<string, Record<string, unknown>>>;
  drop: () => Promise<void>;
} | null> {
  if (!(await serviceAvailable("PostgreSQL", 5432))) return null;
  const name = `${prefix}_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const pool = new pg.Pool({ host: "127.0.0.1", port: 5432, user: "postgres", database: name, max: 10 });
  // DROP ... WITH (FORCE) at teardown can reach a connection that is still closing (57P01).
  pool.on("error", (error) => {
    if ((error as { code?: string }).code !== "57P01") throw error;
  });
  const db = new Kysely<Record<string, Record<string, unknown>>>({ dialect: new PostgresDialect({ pool }) });
  await migrate(db as never);
  return {
    db,
    async drop() {
      await db.destroy();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
