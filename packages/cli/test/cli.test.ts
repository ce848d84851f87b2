import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { serviceAvailable } from "../../adapter-test/src/services.js";

const run = promisify(execFile);
const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "latchkey-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the latchkey command", () => {
  it("secret prints a fresh secret long enough for AUTH_SECRET, different each time", async () => {
    const a = (await run(process.execPath, [cli, "secret", "--raw"])).stdout.trim();
    const b = (await run(process.execPath, [cli, "secret", "--raw"])).stdout.trim();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect((await run(process.execPath, [cli, "secret"])).stdout).toMatch(/^AUTH_SECRET="[A-Za-z0-9_-]{43}"\n$/);
  });
  it("migrate runs the SQL adapter's migrations and reports what it did", async () => {
    const url = `sqlite:${join(dir, "auth.db")}`;
    const first = await run(process.execPath, [cli, "migrate", url]);
    expect(first.stdout).toMatch(/users/);
    expect(first.stdout).toMatch(/done: \d+ change/);
    const second = await run(process.execPath, [cli, "migrate", url]);
    expect(second.stdout).toMatch(/nothing to do/);
  });
  it("migrate on PostgreSQL installs the triggers that NOTIFY session changes on the store's channel (--channel), and a plain-SQL DELETE or UPDATE sends one", async (t) => {
    if (!(await serviceAvailable("PostgreSQL", 5432))) return t.skip();
    const name = `latchkey_cli_${randomBytes(4).toString("hex")}`;
    const root = new pg.Client({ host: "127.0.0.1", user: "postgres", database: "postgres" });
    await root.connect();
    await root.query(`CREATE DATABASE ${name}`);
    const url = `postgres://postgres@127.0.0.1:5432/${name}`;
    const db = new pg.Client({ connectionString: url });
    try {
      const first = await run(process.execPath, [cli, "migrate", url, "--channel", "app_sessions"]);
      expect(first.stdout).toContain(
        "created trigger latchkey_session_change_sessions on sessions (notifies app_sessions)",
      );
      expect(first.stdout).toContain("created trigger latchkey_session_change_users on users (notifies app_sessions)");
      expect((await run(process.execPath, [cli, "migrate", url, "--channel", "app_sessions"])).stdout).toMatch(
        /nothing to do/,
      );
      const moved = await run(process.execPath, [cli, "migrate", url, "--channel", "other_channel"]);
      expect(moved.stdout).toContain(
        "replaced trigger latchkey_session_change_sessions on sessions (notifies other_channel)",
      );
      await expect(run(process.execPath, [cli, "migrate", url, "--channel", "Bad-Name"])).rejects.toMatchObject({
        code: 2,
        stderr: expect.stringContaining("--channel must be a lower-case SQL identifier"),
      });

      await db.connect();
      const heard: string[] = [];
      db.on("notification", (m) => heard.push(String(m.payload)));
      await db.query("LISTEN other_channel");
      const token = randomBytes(32).toString("hex");
      await db.query(`INSERT INTO users (id, name) VALUES ('u1', 'Ada')`);
      await db.query(
        `INSERT INTO sessions ("sessionToken", "userId", expires) VALUES ($1, 'u1', now() + interval '1 day')`,
        [token],
      );
      expect(heard, "an insert changes no read").toEqual([]);
      await db.query(`DELETE FROM sessions WHERE "sessionToken" = $1`, [token]);
      await db.query(`UPDATE users SET name = 'Ada L.' WHERE id = 'u1'`);
      // NOTIFY is delivered at commit, before the next query's answer on this connection.
      await db.query("SELECT 1");
      const key = createHash("sha256").update(token).digest("hex");
      expect(heard.map((p) => JSON.parse(p))).toEqual([
        { c: "s", i: key },
        { c: "u", i: "u1" },
      ]);
      expect(heard.join("")).not.toContain(token);
    } finally {
      await db.end().catch(() => {});
      await root.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await root.end();
    }
  });
  it("migrate without a URL passes the SQL adapter's usage and exit code through", async () => {
    await expect(run(process.execPath, [cli, "migrate"])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("Usage: latchkey migrate <database-url>"),
    });
  });
  it("is the package's only entry: a bin, no importable subpath", async () => {
    const manifest = JSON.parse(readFileSync(fileURLToPath(new URL("../package.json", import.meta.url)), "utf8"));
    expect(manifest.bin).toEqual({ latchkey: "./dist/cli.js" });
    expect(Object.keys(manifest.exports)).toEqual(["./package.json"]);
    expect(readFileSync(cli, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
  });
  it("prints usage and exits 2 for an unknown command", async () => {
    await expect(run(process.execPath, [cli, "frobnicate"])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/Usage/),
    });
  });
});
