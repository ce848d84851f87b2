/**
 * The demo's password hashes (scrypt strings, by user id), in a table of the application's own
 * next to the adapter's (`demo_passwords`, created on first use): Latchkey's adapters keep users,
 * sessions and single-use records, never passwords. In the database rather than in memory, so
 * every Next.js server (and the proxy) reads the same hashes and a reset is seen by all of them.
 * The seeded demo user's password is set the first time the table is made.
 */

import { hashPassword } from "@latchkey/core/password";
import { DEMO_USER } from "@latchkey/express-demo/users";
import type { PasswordStore } from "@latchkey/next/accounts";
import { sql } from "kysely";
import { adapter, db } from "./storage";

let ready: Promise<void> | undefined;

async function createTable(): Promise<void> {
  await db.schema
    .createTable("demo_passwords")
    .ifNotExists()
    .addColumn("user_id", "varchar(255)", (c) => c.primaryKey())
    .addColumn("hash", "text", (c) => c.notNull())
    .execute();
  const demo = await adapter.getUserByEmail?.(DEMO_USER.email);
  if (demo) {
    const hash = await hashPassword(DEMO_USER.password);
    await sql`insert into demo_passwords (user_id, hash) values (${demo.id}, ${hash}) on conflict (user_id) do nothing`.execute(
      db,
    );
  }
}

/** Creates the table once per process (again after a failure). */
function table(): Promise<void> {
  ready ??= createTable().catch((e) => {
    ready = undefined;
    throw e;
  });
  return ready;
}

export const passwords: PasswordStore = {
  async getPasswordHash(userId) {
    await table();
    const { rows } = await sql<{ hash: string }>`select hash from demo_passwords where user_id = ${userId}`.execute(db);
    return rows[0]?.hash ?? null;
  },
  async setPasswordHash(userId, hash) {
    await table();
    await sql`insert into demo_passwords (user_id, hash) values (${userId}, ${hash})
      on conflict (user_id) do update set hash = excluded.hash`.execute(db);
  },
};
