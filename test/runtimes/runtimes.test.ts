/**
 * Latchkey on every runtime: the checks of `scenario.ts` against two applications, each served by
 * its own entry on each runtime of `runtimes.ts` — the pipeline through `Auth(request, config)`
 * (`core-app.ts`, served by the launchers of `serve/`) and the Hono demo through `@latchkey/hono`
 * (`examples/hono-demo`, its `node.js`, `bun.js`, `deno.js` and `worker.js`).
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { hashPassword } from "@latchkey/core/password";
import { afterAll, beforeAll, describe, inject, it } from "vitest";
import type { Jar } from "../frameworks/http.js";
import type { ServerProcess } from "../support/server-process.js";
import { buildFolder, root } from "./bundle.js";
import { ADA } from "./core-app.js";
import { bun, deno, edge, node, type Runtime, type RuntimeApp, workerd } from "./runtimes.js";
import { checks, clientChecks, guardChecks, type Site } from "./scenario.js";

interface AppUnderTest extends RuntimeApp {
  /** The variables it is started with, for `secret`. */
  env(secret: string): Promise<Record<string, string>>;
  site: Omit<Site, "url" | "secret" | "signedIn">;
  /** Who its own code finds signed in, given its URL. */
  signedIn(url: string, jar: Jar): Promise<string | null>;
}

const here = join(root, "test", "runtimes");
const honoDemo = join(root, "examples", "hono-demo", "dist");
const ADA_PASSWORD = "correct horse battery staple";

/** The pipeline through `Auth(request, config)`: `core-app.ts`, a Worker module, and the launchers of `serve/`. */
const coreApp = join(here, "core-app.ts");
const core: AppUnderTest = {
  name: "Auth()",
  entries: {
    node: [join(here, "serve", "node.ts"), coreApp],
    bun: [join(here, "serve", "bun.ts"), coreApp],
    deno: [join(here, "serve", "deno.ts"), coreApp],
    worker: coreApp,
  },
  // Hashed at the cost the README gives an application that signs in on Node.js and where
  // `node:crypto` is absent alike (a Worker refuses Node's 128 MiB default, naming this fix).
  env: async (secret) => ({
    AUTH_SECRET: secret,
    PASSWORD_HASH: await hashPassword(ADA_PASSWORD, { parameters: { ln: 14, r: 8, p: 8 } }),
  }),
  site: {
    account: {
      name: ADA.name,
      email: ADA.email,
      form: { email: ADA.email, password: ADA_PASSWORD },
      wrongPassword: { email: ADA.email, password: `${ADA_PASSWORD}!` },
    },
  },
  async signedIn(url, jar) {
    const session = (await (await jar.fetch(`${url}/me`)).json()) as { user?: { email?: string } } | null;
    return session?.user?.email ?? null;
  },
};

/** The Hono demo through `@latchkey/hono`: `examples/hono-demo`, built, and its entries. */
const hono: AppUnderTest = {
  name: "Hono demo",
  entries: {
    node: [join(honoDemo, "node.js")],
    bun: [join(honoDemo, "bun.js")],
    deno: [join(honoDemo, "deno.js")],
    worker: join(honoDemo, "worker.js"),
  },
  env: async (secret) => ({ AUTH_SECRET: secret, HOST: "127.0.0.1", PORT: "0" }),
  site: {
    account: {
      name: "Demo User",
      email: "demo@example.com",
      form: { email: "demo@example.com", password: "demo-password" },
      wrongPassword: { email: "demo@example.com", password: "wrong-password" },
    },
    guarded: "/protected",
  },
  async signedIn(url, jar) {
    const home = await (await jar.fetch(`${url}/`)).text();
    return /Signed in as <strong>[^<]*<\/strong> \(([^)]+)\)/.exec(home)?.[1] ?? null;
  },
};

/**
 * The Hono demo where the server under Hono gives it each client's address (`@hono/node-server`,
 * `Bun.serve`, `Deno.serve`), and where nothing does (a Worker, the Edge runtime: `clientAddress`
 * is the application's to set there).
 */
const honoWith = (peerAddress: boolean): AppUnderTest => ({ ...hono, site: { ...hono.site, peerAddress } });

/**
 * Each runtime and the applications it serves. On workerd without `nodejs_compat` the Hono demo's
 * bundle holds no nodemailer (installed here, as in an application that also sends e-mail from
 * Node.js): only the SMTP providers' modules reach it, and the demo's Worker uses none.
 */
const matrix: { runtime: Runtime; apps: AppUnderTest[] }[] = [
  { runtime: node, apps: [core, honoWith(true)] },
  { runtime: bun, apps: [core, honoWith(true)] },
  { runtime: deno, apps: [core, honoWith(true)] },
  { runtime: workerd(true), apps: [core, honoWith(false)] },
  { runtime: workerd(false), apps: [core, honoWith(false)] },
  { runtime: edge, apps: [core, honoWith(false)] },
];

const folder = buildFolder();
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe.each(matrix)("$runtime.name", ({ runtime, apps }) => {
  describe.each(apps)("$name", (app) => {
    let server: ServerProcess | undefined;
    let site: Site;
    beforeAll(async () => {
      const secret = randomBytes(32).toString("base64url");
      server = await runtime.start(app, await app.env(secret), folder);
      const url = server.url;
      site = { ...app.site, url, secret, signedIn: (jar) => app.signedIn(url, jar) };
    }, 120_000 * inject("timeScale"));
    afterAll(() => server?.stop());

    // The client checks last: where there is no address, they leave the account held off.
    const all = [
      ...checks,
      ...(app.site.guarded ? guardChecks : []),
      ...(app.site.peerAddress === undefined ? [] : clientChecks),
    ];
    it.each(all)("$name", async (check) => {
      try {
        await check.run(site);
      } catch (error) {
        // The server's own account of what went wrong, with the assertion that caught it.
        const printed = server?.output().slice(-4000);
        throw new Error(`${(error as Error).message}\n--- ${app.name} on ${runtime.name} printed:\n${printed}`, {
          cause: error,
        });
      }
    });
  });
});
