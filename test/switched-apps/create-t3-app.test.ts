// A public next-auth v5 application moves to Latchkey by its imports alone. create-t3-app (pinned
// below, from the npm registry) generates its App Router application with next-auth, the Drizzle
// adapter on PostgreSQL, database sessions, tRPC and a module augmentation of `Session`. The
// application is made twice from one generation: the control, as generated (next-auth), and the
// switched one, changed by scripts/switch-imports.mjs only, with Latchkey's packages packed from
// this checkout. Both are built with `next build` (type-checking included) and started with
// `next start` on one database, then driven over HTTP the same way: every check must hold on both,
// and a session made under either library is read by the other.
//
// One change is made to both copies, and it is the environment's, not the switch's: the layout's
// Google font is dropped, since `next build` fetches it from fonts.googleapis.com and this machine
// reaches only the npm registry.
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { switchApplication } from "../../scripts/switch-imports.mjs";
import { type ServerProcess, startServerProcess } from "../support/server-process.js";

const CREATE_T3_APP = "create-t3-app@7.40.0";
const SECRET = "switched-app-secret-0123456789abcdef0123456789";
const root = join(import.meta.dirname, "../..");
const run = promisify(execFile);
const scale = inject("timeScale");
const minutes = (n: number) => n * 60_000 * scale;

const folder = mkdtempSync(join(tmpdir(), "latchkey-t3-"));
const database = `t3_switch_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
const admin = () => new pg.Client({ connectionString: "postgresql://postgres@127.0.0.1:5432/postgres" });
const databaseUrl = `postgresql://postgres@127.0.0.1:5432/${database}`;
const db = new pg.Client({ connectionString: databaseUrl });

interface App {
  name: "next-auth" | "Latchkey";
  dir: string;
  server?: ServerProcess;
  url: string;
}
const control: App = { name: "next-auth", dir: join(folder, "control"), url: "" };
const switched: App = { name: "Latchkey", dir: join(folder, "switched"), url: "" };
const apps = [control, switched];

/** The table prefix create-t3-app gives the application's tables (its folder's name). */
const table = (name: string) => `"t3-app_${name}"`;

const env = (extra: Record<string, string> = {}) => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  NEXT_TELEMETRY_DISABLED: "1",
  AUTH_SECRET: SECRET,
  AUTH_DISCORD_ID: "discord-client",
  AUTH_DISCORD_SECRET: "discord-secret",
  DATABASE_URL: databaseUrl,
  ...extra,
});

async function npm(args: string[], cwd: string) {
  await run("npm", args, { cwd, env: { ...process.env, npm_config_loglevel: "error" }, maxBuffer: 64 << 20 });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A user and a database session for them, written as the Drizzle adapter writes them. */
async function sessionFor(name: string) {
  const userId = randomUUID();
  const token = randomUUID();
  await db.query(`insert into ${table("user")} (id, name, email) values ($1, $2, $3)`, [
    userId,
    name,
    `${userId}@example.com`,
  ]);
  await db.query(
    `insert into ${table("session")} ("sessionToken", "userId", expires) values ($1, $2, now() + interval '30 days')`,
    [token, userId],
  );
  return { userId, token, cookie: `authjs.session-token=${token}` };
}

beforeAll(async () => {
  await npm(
    [
      "exec",
      "--yes",
      "--",
      CREATE_T3_APP,
      "t3-app",
      "--CI",
      "--appRouter",
      "--nextAuth",
      "--drizzle",
      "--tailwind",
      "--trpc",
      "--dbProvider",
      "postgres",
      "--noGit",
      "--noInstall",
    ],
    folder,
  );
  const generated = join(folder, "t3-app");
  const layout = join(generated, "src/app/layout.tsx");
  const text = readFileSync(layout, "utf8")
    .replace(/import \{ Geist \} from "next\/font\/google";\n/, "")
    .replace(/const geist = Geist\(\{[^}]*\}\);\n/s, "")
    .replace(/ className=\{`\$\{geist\.variable\}`\}/, "");
  expect(text, "the layout's font is dropped (offline build)").not.toMatch(/geist|next\/font/i);
  writeFileSync(layout, text);
  for (const app of apps) cpSync(generated, app.dir, { recursive: true });

  const packed = join(folder, "packed");
  mkdirSync(packed);
  await npm(["pack", "-w", "packages/core", "-w", "packages/next", "--pack-destination", packed], root);
  const changed = switchApplication(switched.dir, {
    next: `file:${join(packed, "latchkey-next-0.1.0.tgz")}`,
    core: `file:${join(packed, "latchkey-core-0.1.0.tgz")}`,
  });
  expect(changed.length, "the auth module, its config, the schema and package.json").toBeGreaterThanOrEqual(4);

  const client = admin();
  await client.connect();
  await client.query(`create database ${database}`);
  await client.end();
  await db.connect();

  for (const app of apps) await npm(["install", "--no-audit", "--no-fund"], app.dir);
  await run(process.execPath, ["node_modules/drizzle-kit/bin.cjs", "push", "--force"], {
    cwd: control.dir,
    env: env(),
  });
  for (const app of apps) {
    await run(process.execPath, ["node_modules/next/dist/bin/next", "build"], {
      cwd: app.dir,
      env: env(),
      maxBuffer: 64 << 20,
    }).catch((error) => {
      throw new Error(`next build of the ${app.name} copy failed:\n${error.stdout}\n${error.stderr}`);
    });
  }
  for (const app of apps) {
    const port = await freePort();
    app.url = `http://localhost:${port}`;
    app.server = await startServerProcess(["node_modules/next/dist/bin/next", "start", "-p", String(port)], {
      cwd: app.dir,
      env: env({ AUTH_URL: `${app.url}/api/auth`, NODE_ENV: "production" }),
      name: `create-t3-app under ${app.name}`,
      ready: (output) => (/Ready in/.test(output) ? app.url : undefined),
      timeoutMs: minutes(2),
    });
  }
}, minutes(20));

afterAll(async () => {
  for (const app of apps) await app.server?.stop();
  await db.end().catch(() => {});
  const client = admin();
  await client.connect();
  await client.query(`drop database if exists ${database} with (force)`);
  await client.end();
  rmSync(folder, { recursive: true, force: true });
});

describe.each(apps)("create-t3-app on $name", (app) => {
  const other = () => (app === control ? switched : control);

  it("offers a visitor 'Sign in' and the Discord sign-in page", async () => {
    expect(await (await fetch(app.url)).text()).toContain("Sign in");
    const page = await fetch(`${app.url}/api/auth/signin`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Discord");
  });

  it("reads the database session, with the user's id added by the session callback", async () => {
    const { userId, cookie } = await sessionFor(`Tess ${app.name}`);
    const session = await (await fetch(`${app.url}/api/auth/session`, { headers: { cookie } })).json();
    expect(session.user).toMatchObject({ id: userId, name: `Tess ${app.name}` });
    // React separates the text from the value it renders after it with an empty comment.
    const page = await (await fetch(app.url, { headers: { cookie } })).text();
    expect(page).toMatch(new RegExp(`Logged in as (<!-- -->)?Tess ${app.name}<`));
  });

  it("runs a protected tRPC mutation as the signed-in user, and refuses a visitor", async () => {
    const { userId, cookie } = await sessionFor("Poster");
    const create = (headers: Record<string, string>) =>
      fetch(`${app.url}/api/trpc/post.create?batch=1`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ 0: { json: { name: `post under ${app.name}` } } }),
      });
    expect((await create({ cookie })).status).toBe(200);
    const posts = await db.query(`select name from ${table("post")} where "createdById" = $1`, [userId]);
    expect(posts.rows).toEqual([{ name: `post under ${app.name}` }]);
    expect((await create({})).status).toBe(401);
  });

  it("reads a session the other library is serving", async () => {
    const { userId, cookie } = await sessionFor("Crossing");
    const there = await (await fetch(`${other().url}/api/auth/session`, { headers: { cookie } })).json();
    const here = await (await fetch(`${app.url}/api/auth/session`, { headers: { cookie } })).json();
    expect(there.user.id).toBe(userId);
    expect(here.user.id).toBe(userId);
  });

  it("signs out: the session row is deleted and the tRPC procedure refuses the old cookie", async () => {
    const { token, cookie } = await sessionFor("Leaving");
    const csrfResponse = await fetch(`${app.url}/api/auth/csrf`, { headers: { cookie } });
    const { csrfToken } = (await csrfResponse.json()) as { csrfToken: string };
    const csrfCookie = csrfResponse.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const out = await fetch(`${app.url}/api/auth/signout`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: `${cookie}; ${csrfCookie}`, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken }),
    });
    expect(out.status).toBe(302);
    const rows = await db.query(`select 1 from ${table("session")} where "sessionToken" = $1`, [token]);
    expect(rows.rowCount).toBe(0);
    expect(await (await fetch(`${app.url}/api/auth/session`, { headers: { cookie } })).json()).toBeNull();
  });
});
