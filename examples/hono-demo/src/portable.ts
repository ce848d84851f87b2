/**
 * The demo as it runs on any runtime: Bun (`bun.ts`), Deno (`deno.ts`), a Cloudflare Worker
 * (`worker.ts`), Node.js (`node.ts`). The same Hono application and pages as `npm start`, with the
 * seeded demo user's password sign-in, users in memory (`MemoryAdapter`, emptied by a restart) and
 * JWT sessions. What needs Node.js stays in the Node.js demo (`server.ts`): SQLite or PostgreSQL,
 * the mail catcher and the local identity provider.
 *
 * Nothing runs at import: a Worker may not make random values at global scope, so the demo user
 * and its password hash are made by the first request.
 */
import { authorizePassword, MemoryPasswordStore } from "@latchkey/core/accounts";
import { MemoryAdapter } from "@latchkey/core/memory-adapter";
import { hashPassword } from "@latchkey/core/password";
import { DEMO_USER, seedDemoUser } from "@latchkey/express-demo/users";
import type { AuthConfig } from "@latchkey/hono";
import Credentials from "@latchkey/hono/providers/credentials";
import { createHonoApp } from "./app.js";

/** The variables the demo reads: a Worker's `env`, or `process.env`, `Bun.env`, `Deno.env`. */
export interface PortableDemoEnv {
  /** The secret of the session cookies (`npx @latchkey/cli secret`). */
  AUTH_SECRET?: string | undefined;
}

/**
 * The demo's `fetch`: Latchkey's actions under /auth, and the pages of the Node.js demo. `server`
 * is what the runtime's server passes beside the request (Bun's server, Deno's handler info,
 * `@hono/node-server`'s Node.js request), handed on to Hono as `c.env`: `HonoAuth` reads the
 * client's address there, so the sign-in limits count per client.
 */
export function portableDemo(env: PortableDemoEnv): { fetch(request: Request, server?: unknown): Promise<Response> } {
  const adapter = MemoryAdapter();
  const passwords = new MemoryPasswordStore();
  const config: AuthConfig = {
    secret: env.AUTH_SECRET,
    trustHost: true, // behind a proxy or on a platform's domain, set AUTH_URL instead
    adapter,
    session: { strategy: "jwt" },
    theme: { colorScheme: "auto", brandColor: "#3b5bdb" },
    providers: [
      Credentials({
        name: "Password",
        credentials: {
          email: { label: "Email", type: "email", autocomplete: "username", required: true },
          password: { label: "Password", type: "password", autocomplete: "current-password", required: true },
        },
        authorize: (credentials) => authorizePassword(config, { passwords }, credentials),
      }),
    ],
    callbacks: {
      session: ({ session, token }) => ({
        ...session,
        user: { ...session.user, id: token.sub },
        provider: "credentials",
      }),
    },
  };
  const app = createHonoApp({ config });
  let seeded: Promise<unknown> | undefined;
  const seed = async () => {
    const user = await seedDemoUser(adapter);
    await passwords.setPasswordHash(user.id, await hashPassword(DEMO_USER.password));
  };
  return {
    async fetch(request, server) {
      seeded ??= seed();
      await seeded;
      return app.fetch(request, server);
    },
  };
}
