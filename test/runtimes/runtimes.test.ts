/**
 * Latchkey on every runtime: the checks of `scenario.ts` against two applications, each served by
 * its own entry on each runtime of `runtimes.ts` — the pipeline through `Auth(request, config)`
 * (`core-app.ts`, entries in `entries/`) and the Hono demo through `@latchkey/hono`
 * (`examples/hono-demo`, its `node.js`, `bun.js`, `deno.js` and `worker.js`).
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { hashPassword } from "@latchkey/core/password";
import { afterAll, beforeAll, describe, inject, it } from "vitest";
import type { Jar } from "../frameworks/http.js";
import type { ServerProcess } from "../support/server-process.js";
import { buildFolder, root } from "./bundle.js";
import { ADA } from "./core-app.js";
import { bun, deno, node, type Runtime, type RuntimeApp, workerd } from "./runtimes.js";
import { checks, guardChecks, type Site } from "./scenario.js";

const runtimes: Runtime[] = [node, bun, deno, workerd(true)];

interface AppUnderTest extends RuntimeApp {
  /** The variables it is started with, for `secret`. */
  env(secret: string): Promise<Record<string, string>>;
  site: Omit<Site, "url" | "secret">;
  /** Who its own code finds signed in, given its URL. */
  signedIn(url: string, jar: Jar): Promise<string | null>;
}

const here = join(root, "test", "runtimes");
const honoDemo = join(root, "examples", "hono-demo", "dist");
const ADA_PASSWORD = "correct horse battery staple";

const apps: AppUnderTest[] = [
  {
    name: "Auth()",
    entries: {
      node: join(here, "entries", "node.ts"),
      bun: join(here, "entries", "bun.ts"),
      deno: join(here, "entries", "deno.ts"),
      worker: join(here, "entries", "worker.ts"),
    },
    env: async (secret) => ({ AUTH_SECRET: secret, PASSWORD_HASH: await hashPassword(ADA_PASSWORD) }),
    site: {
      account: {
        name: ADA.name,
        email: ADA.email,
        form: { email: ADA.email, password: ADA_PASSWORD },
        wrongPassword: { email: ADA.email, password: `${ADA_PASSWORD}!` },
      },
      signedIn: () => Promise.resolve(null),
    },
    async signedIn(url, jar) {
      const session = (await (await jar.fetch(`${url}/me`)).json()) as { user?: { email?: string } } | null;
      return session?.user?.email ?? null;
    },
  },
  {
    name: "Hono demo",
    entries: {
      node: join(honoDemo, "node.js"),
      bun: join(honoDemo, "bun.js"),
      deno: join(honoDemo, "deno.js"),
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
      signedIn: () => Promise.resolve(null),
      guarded: "/protected",
    },
    async signedIn(url, jar) {
      const home = await (await jar.fetch(`${url}/`)).text();
      return /Signed in as <strong>[^<]*<\/strong> \(([^)]+)\)/.exec(home)?.[1] ?? null;
    },
  },
];

const folder = buildFolder();

describe.each(runtimes)("$name", (runtime) => {
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

    it.each([...checks, ...(app.site.guarded ? guardChecks : [])])("$name", async (check) => {
      try {
        await check.run(site);
      } catch (error) {
        // The server's own account of what went wrong, with the assertion that caught it.
        throw new Error(
          `${(error as Error).message}\n--- ${app.name} on ${runtime.name} printed:\n${server?.output().slice(-4000)}`,
          {
            cause: error,
          },
        );
      }
    });
  });
});
