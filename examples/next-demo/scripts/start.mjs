/**
 * `npm run start:next` (after `npm run build:next`): starts what the demo needs beside Next.js, then
 * `next start` on the built app.
 *
 *   - the database: migrated and seeded with the demo user (SQLite in data/, or DATABASE_URL);
 *   - development only, offline: an SMTP server that keeps the sign-in e-mails (shown at /dev/mail)
 *     and a local OpenID Provider ("Demo IdP", any name and password), the same code as the
 *     Express demo's (imported from @latchkey/express-demo);
 *   - the secret: AUTH_SECRET, else one generated on first start and kept in the data folder.
 *
 * `node scripts/start.mjs [app folder]` (default: this demo; examples/next-demo-15 passes its own).
 * Environment: PORT (default 3000; 0 picks a free port), HOST (default localhost), AUTH_URL,
 * AUTH_SECRET, DATABASE_URL, DEMO_DATA_DIR. A real application runs `next start` with its own
 * identity provider and mail server instead.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startDemoIdP } from "@latchkey/express-demo/dev-idp";
import { startMailCatcher } from "@latchkey/express-demo/dev-mail";
import { openStorage } from "@latchkey/express-demo/storage";
import { DEMO_USER, seedDemoUser } from "@latchkey/express-demo/users";

const appDir = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), ".."));
const env = process.env;
const dataDir = resolve(env.DEMO_DATA_DIR ?? join(appDir, "data"));
mkdirSync(dataDir, { recursive: true });

/** A free port on the interface (bound, then released) when PORT is 0. */
async function pickPort(host, wanted) {
  if (wanted !== 0) return wanted;
  const probe = createServer();
  await new Promise((done, fail) => probe.once("error", fail).listen(0, host, done));
  const { port } = probe.address();
  await new Promise((done) => probe.close(done));
  return port;
}

const host = env.HOST ?? "localhost";
const port = await pickPort(host, Number(env.PORT ?? 3000));
const url = env.AUTH_URL ? new URL(env.AUTH_URL).origin : `http://localhost:${port}`;

const secretFile = join(dataDir, "auth-secret");
if (!env.AUTH_SECRET && !existsSync(secretFile))
  writeFileSync(secretFile, randomBytes(32).toString("base64url"), { mode: 0o600 });
const secret = env.AUTH_SECRET ?? readFileSync(secretFile, "utf8").trim();

// The tables, and the demo user (so a password, a magic link and a passkey reach one user).
const storage = await openStorage({ dataDir, databaseUrl: env.DATABASE_URL });
await seedDemoUser(storage.adapter);
await storage.close();

// Development only: the mail catcher (its messages as JSON on a loopback port, for /dev/mail) and
// the identity provider, which must know the demo's callback URL.
const mailbox = await startMailCatcher();
const mailApi = createServer((_req, res) => {
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify(mailbox.messages));
});
await new Promise((done) => mailApi.listen(0, "127.0.0.1", done));
const mailUrl = `http://127.0.0.1:${mailApi.address().port}/`;
const idp = await startDemoIdP([`${url}/api/auth/callback/demo-idp`]);

const nextBin = createRequire(join(appDir, "package.json")).resolve("next/dist/bin/next");
const child = spawn(process.execPath, [nextBin, "start", appDir, "--port", String(port), "--hostname", host], {
  env: {
    ...env,
    NEXT_TELEMETRY_DISABLED: "1",
    // The demo's URL: links (mailed ones included) are built from it, never from a request's host.
    AUTH_URL: env.AUTH_URL ?? url,
    AUTH_SECRET: secret,
    DEMO_DATA_DIR: dataDir,
    DEMO_SMTP_PORT: String(mailbox.port),
    DEMO_MAIL_URL: mailUrl,
    DEMO_IDP_ISSUER: idp.issuer,
    DEMO_IDP_CLIENT_ID: idp.clientId,
    DEMO_IDP_CLIENT_SECRET: idp.clientSecret,
  },
  stdio: ["ignore", "pipe", "inherit"],
});

let announced = false;
child.stdout.on("data", (chunk) => {
  process.stdout.write(chunk);
  if (!announced && /Ready in/.test(String(chunk))) {
    announced = true;
    console.log(`Latchkey Next.js demo on ${url}`);
    console.log(`  - password: ${DEMO_USER.email} / ${DEMO_USER.password}`);
    console.log(`  - e-mail link and code: SMTP on 127.0.0.1:${mailbox.port}, messages at ${url}/dev/mail`);
    console.log(`    the same as JSON (text and HTML parts included) at ${mailUrl}`);
    console.log(`  - Demo IdP: OpenID Provider at ${idp.issuer} (any name and password)`);
    console.log("  - passkeys, and an authenticator app as a second factor (on /account)");
    console.log(`  - storage: ${storage.label}`);
  }
});

async function stop(code) {
  child.kill("SIGTERM");
  await Promise.all([idp.close(), mailbox.close(), new Promise((done) => mailApi.close(done))]);
  process.exit(code);
}
child.once("exit", (code) => void stop(code ?? 1));
for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => void stop(0));
