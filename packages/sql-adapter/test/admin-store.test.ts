/**
 * `SqlAdminStore`: the conformance suite every `AdminStore` runs, on PostgreSQL, MariaDB and SQLite,
 * two instances sharing the tables `migrate` made; `SqlAdapter.listUsers` (paged by id, the query
 * taken literally: LIKE's wildcards and its escape character are escaped); a ban on one instance
 * refusing the sign-in and ending the session on the other; then a database never migrated.
 */
import { randomUUID } from "node:crypto";
import { runAdminStoreConformance } from "@latchkey/adapter-test/admin-store";
import { Auth, type AuthConfig } from "@latchkey/core";
import { Admin } from "@latchkey/core/admin";
import Credentials from "@latchkey/core/providers/credentials";
import { SqlAdapter, SqlAdminStore } from "@latchkey/sql-adapter";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { describe, expect, it } from "vitest";
import { backendsFor } from "./backends.js";

const backends = backendsFor("admin");
const ORIGIN = "http://localhost:3000";

/** One instance of the application over `db`: database sessions, the admin store in the configuration. */
function instance(db: Parameters<typeof SqlAdapter>[0], secret: string) {
  const adapter = SqlAdapter(db);
  const store = SqlAdminStore(db);
  const config: AuthConfig = {
    secret,
    trustHost: true,
    adapter,
    session: { strategy: "database" },
    admin: { store },
    rateLimit: false,
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    providers: [
      Credentials({
        databaseSessions: true,
        credentials: { email: {}, password: {} },
        authorize: async (c) =>
          c.password === "pw" ? ((await adapter.getUserByEmail?.(String(c.email))) ?? null) : null,
      }),
    ],
  };
  return { config, adapter, store };
}

/** Signs `email` in on `config`; the session cookie, or the `error` the sign-in answered. */
async function signIn(config: AuthConfig, email: string): Promise<{ cookie?: string; error?: string | null }> {
  const csrf = await Auth(new Request(`${ORIGIN}/auth/csrf`), config);
  const csrfCookie = csrf.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const response = await Auth(
    new Request(`${ORIGIN}/auth/callback/credentials`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookie },
      body: new URLSearchParams({ csrfToken, email, password: "pw" }),
    }),
    config,
  );
  const session = response.headers.getSetCookie().find((c) => c.startsWith("authjs.session-token="));
  const error = new URL(response.headers.get("location") ?? "", ORIGIN).searchParams.get("error");
  return session ? { cookie: session.split(";")[0] } : { error };
}

async function whoIs(config: AuthConfig, cookie: string): Promise<string | null> {
  const response = await Auth(new Request(`${ORIGIN}/auth/session`, { headers: { cookie } }), config);
  return ((await response.json()) as { user?: { email?: string } } | null)?.user?.email ?? null;
}

for (const backend of backends) {
  const available = await backend.up();
  runAdminStoreConformance(
    `SqlAdminStore (${backend.name})`,
    async () => {
      const { dbs, drop } = await backend.open();
      return { stores: [SqlAdminStore(dbs[0]), SqlAdminStore(dbs[1])], teardown: drop };
    },
    { skip: !available },
  );

  describe.skipIf(!available)(`admin over SqlAdapter and SqlAdminStore, two instances (${backend.name})`, () => {
    it("SqlAdapter.listUsers pages by id and takes the query literally, case aside: % _ ! are no wildcards", async () => {
      const { dbs, drop } = await backend.open();
      try {
        const adapter = SqlAdapter(dbs[0]);
        const names = ["Ada Lovelace", "100% real", "under_score", "bang!bang", "UPPER Case", "plain"];
        for (const [i, name] of names.entries())
          await adapter.createUser?.({ id: `u-${i}`, email: `user${i}@Example.COM`, emailVerified: null, name });
        const ids = async (options: { query?: string; after?: string; limit: number }) =>
          ((await adapter.listUsers?.(options)) ?? []).map((u) => u.id);
        expect(await ids({ limit: 4 })).toEqual(["u-0", "u-1", "u-2", "u-3"]);
        expect(await ids({ limit: 4, after: "u-3" })).toEqual(["u-4", "u-5"]);
        expect(await ids({ limit: 10, query: "%" })).toEqual(["u-1"]);
        expect(await ids({ limit: 10, query: "_" })).toEqual(["u-2"]);
        expect(await ids({ limit: 10, query: "!" })).toEqual(["u-3"]);
        expect(await ids({ limit: 10, query: "upper case" })).toEqual(["u-4"]);
        expect(await ids({ limit: 10, query: "example.com" })).toEqual(["u-0", "u-1", "u-2", "u-3", "u-4", "u-5"]);
        expect(await ids({ limit: 10, query: "u%r" })).toEqual([]);
        expect(await ids({ limit: 10, query: "'; drop table users; --" })).toEqual([]);
        expect(await ids({ limit: 2, query: "example", after: "u-1" })).toEqual(["u-2", "u-3"]);
      } finally {
        await drop();
      }
    });

    it("rule: a ban on one instance ends the user's session on the other and refuses their sign-in there; unban lets them in", async () => {
      const { dbs, drop } = await backend.open();
      try {
        const secret = `admin-${randomUUID()}-${randomUUID()}`;
        const one = instance(dbs[0], secret);
        const two = instance(dbs[1], secret);
        for (const id of ["owner", "eve"])
          await one.adapter.createUser?.({ id, email: `${id}@example.com`, emailVerified: null });
        const admin = Admin(one.config, { admins: { userIds: ["owner"] } });
        const held = await signIn(two.config, "eve@example.com");
        if (!held.cookie) throw new Error(`sign-in refused: ${held.error}`);
        expect(await whoIs(two.config, held.cookie)).toBe("eve@example.com");
        expect((await admin.ban("owner", "eve", { reason: "fraud" })).ok).toBe(true);
        expect(await whoIs(two.config, held.cookie)).toBeNull();
        expect(await signIn(two.config, "eve@example.com")).toEqual({ error: "AccessDenied" });
        const listed = await admin.listUsers("owner", { query: "eve" });
        expect(listed.ok && listed.value.users).toMatchObject([{ user: { id: "eve" }, ban: { reason: "fraud" } }]);
        expect((await admin.unban("owner", "eve")).ok).toBe(true);
        expect((await signIn(two.config, "eve@example.com")).cookie).toBeDefined();
      } finally {
        await drop();
      }
    });
  });
}

describe("SqlAdminStore on a database that was never migrated", () => {
  it("names the fix: run latchkey migrate", async () => {
    const db = new Kysely({ dialect: new SqliteDialect({ database: new Database(":memory:") }) });
    try {
      await expect(SqlAdminStore(db).getBan("eve", new Date())).rejects.toThrow(/latchkey migrate/);
    } finally {
      await db.destroy();
    }
  });
});
