/**
 * Starts the whole demo: storage, the development mail server and identity provider, and the
 * application (Express's, or another framework's given as `app`: the Hono and Fastify demos run
 * this same demo with their own). `server.ts` calls it with the environment; the tests call it too.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { hashPassword } from "@latchkey/core/password";
import { demoAdmin } from "./admin.js";
import { type AppOptions, createApp } from "./app.js";
import { authConfig } from "./auth.js";
import { demoAuthorization } from "./authorization.js";
import { startDemoIdP } from "./dev-idp.js";
import { startMailCatcher } from "./dev-mail.js";
import { startPartner } from "./partner.js";
import { demoPasswords } from "./passwords.js";
import { openStorage } from "./storage.js";
import { demoTeams, seedDemoOrganization } from "./teams.js";
import { DEMO_USER, seedDemoUser } from "./users.js";

export type { AppOptions };

export interface DemoOptions {
  /** @default PORT, else 3000 (0 picks a free port) */
  port?: number;
  /** The interface to listen on. @default HOST, else "localhost" */
  host?: string;
  /** Where the SQLite file and the generated secret live. @default DEMO_DATA_DIR, else ./data */
  dataDir?: string;
  env?: NodeJS.ProcessEnv;
  /** The application serving the requests, made from the demo's configuration. @default the Express app */
  app?: (options: AppOptions) => RequestListener | Promise<RequestListener>;
}

export interface RunningDemo {
  url: string;
  /** One line per sign-in method and for the storage, for the start-up message. */
  enabled: string[];
  close(): Promise<void>;
}

/**
 * The secret: AUTH_SECRET when set; otherwise one generated on first start and kept in the data
 * folder, so sessions survive restarts. Production applications set AUTH_SECRET
 * (`npx latchkey secret`, from @latchkey/cli, prints a new one).
 */
function demoSecret(dataDir: string, env: NodeJS.ProcessEnv): string {
  if (env.AUTH_SECRET) return env.AUTH_SECRET;
  const file = join(dataDir, "auth-secret");
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString("base64url"), { mode: 0o600 });
  return readFileSync(file, "utf8").trim();
}

export async function startDemo(options: DemoOptions = {}): Promise<RunningDemo> {
  const env = options.env ?? process.env;
  const development = env.NODE_ENV !== "production";
  const defaultDataDir = join(dirname(fileURLToPath(import.meta.url)), "..", "data");
  const dataDir = resolve(options.dataDir ?? env.DEMO_DATA_DIR ?? defaultDataDir);
  mkdirSync(dataDir, { recursive: true });

  // Listen first: the identity provider must know the demo's address to accept its redirect URI.
  const server = createServer();
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(options.port ?? Number(env.PORT ?? 3000), options.host ?? env.HOST ?? "localhost", done);
  });
  const url = env.AUTH_URL
    ? new URL(env.AUTH_URL).origin
    : `http://localhost:${(server.address() as AddressInfo).port}`;

  const storage = await openStorage({ dataDir, databaseUrl: env.DATABASE_URL, redisUrl: env.REDIS_URL });
  const demoUser = await seedDemoUser(storage.adapter);
  // Its password, where the password sign-in and the account pages read it (passwords.ts).
  await demoPasswords.setPasswordHash(demoUser.id, await hashPassword(DEMO_USER.password));

  // Development only: a mail server that keeps the magic links, and a local OpenID Provider.
  const mailbox = development ? await startMailCatcher() : undefined;
  const idp = development ? await startDemoIdP([`${url}/auth/callback/demo-idp`]) : undefined;
  const mail = mailbox
    ? {
        server: { host: "127.0.0.1", port: mailbox.port, secure: false, ignoreTLS: true },
        from: "Latchkey demo <no-reply@demo.localhost>",
      }
    : env.EMAIL_SERVER
      ? { server: env.EMAIL_SERVER, from: env.EMAIL_FROM ?? "no-reply@localhost" }
      : undefined;

  const sessions = env.DEMO_SESSIONS === "database" ? "database" : "jwt";
  const config = authConfig({ secret: demoSecret(dataDir, env), storage, mail, idp, env, sessions });
  // Organizations and API keys; the demo user owns the seeded organization (teams.ts).
  const teams = demoTeams(config, storage, url, !!mail);
  const organization = await seedDemoOrganization(teams, storage, demoUser.id);
  // The admin tools: the demo user is their owner (admin.ts).
  const admin = demoAdmin(config, storage, demoUser.id, teams.apiKeys);
  // The Express demo is also an authorization server; in development a second app signs in with it.
  const authorization = options.app ? undefined : await demoAuthorization(config, url);
  const partner =
    authorization && development ? await startPartner(url, (uri) => authorization.registerPartner(uri)) : undefined;
  server.on(
    "request",
    await (options.app ?? createApp)({
      config,
      storage,
      mailbox,
      url,
      authorization,
      partnerUrl: partner?.url,
      teams,
      admin,
    }),
  );

  const enabled = [
    `password: ${DEMO_USER.email} / ${DEMO_USER.password}`,
    `sessions: ${sessions === "jwt" ? "JWT (encrypted cookies; DEMO_SESSIONS=database stores them and lists devices)" : "database (devices listed on /account)"}`,
    mailbox
      ? `e-mail link and code: SMTP on 127.0.0.1:${mailbox.port}, messages at ${url}/dev/mail`
      : mail
        ? "e-mail link and code: EMAIL_SERVER"
        : "e-mail link and code: off (set EMAIL_SERVER and EMAIL_FROM)",
    idp ? `Demo IdP: OpenID Provider at ${idp.issuer} (any name and password)` : "Demo IdP: off in production",
    "passkeys",
    env.AUTH_GITHUB_ID && env.AUTH_GITHUB_SECRET ? "GitHub" : "GitHub: off (set AUTH_GITHUB_ID and AUTH_GITHUB_SECRET)",
    env.AUTH_GOOGLE_ID && env.AUTH_GOOGLE_SECRET ? "Google" : "Google: off (set AUTH_GOOGLE_ID and AUTH_GOOGLE_SECRET)",
    ...(authorization
      ? [
          `authorization server: ${url}/.well-known/openid-configuration; MCP server at ${url}/mcp; device-grant CLI: node dist/cli.js ${url}`,
          partner
            ? `sign in with the demo: a second app at ${partner.url}`
            : "sign in with the demo: the second app is off in production",
        ]
      : []),
    `admin: ${DEMO_USER.email} searches users and bans them at ${url}/account/admin`,
    `organizations: ${DEMO_USER.email} owns "${organization.name}"; members, invitations and API keys under ${url}/account`,
    `storage: ${storage.label}`,
  ];

  return {
    url,
    enabled,
    async close() {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
      await Promise.all([idp?.close(), mailbox?.close(), partner?.close()]);
      await storage.close();
    },
  };
}

/**
 * `npm start` of a demo: starts it with the settings of the environment (PORT, DATABASE_URL,
 * REDIS_URL, AUTH_SECRET, AUTH_GITHUB_ID, ..., DEMO_DATA_DIR), prints its address and what is
 * enabled, and closes it on SIGINT and SIGTERM.
 *
 * @example
 * ```ts
 * await runDemo("Hono", { app: createHonoApp })
 * ```
 */
export async function runDemo(framework: string, options: DemoOptions = {}): Promise<void> {
  const demo = await startDemo(options);
  console.log(`Latchkey demo on ${demo.url}`);
  for (const line of [`framework: ${framework}`, ...demo.enabled]) console.log(`  - ${line}`);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => void demo.close().then(() => process.exit(0)));
  }
}
