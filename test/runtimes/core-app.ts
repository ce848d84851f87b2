/**
 * The application every runtime serves for the pipeline's checks (`scenario.ts`): `Auth(request,
 * config)` under `/auth`, and `/me` answering `getSession(request, config)` as JSON. A Worker
 * module: workerd calls its `fetch` with the Worker's variables, the Edge runtime host with
 * Next.js's `process.env`, and the launchers of `serve/` with `process.env`, `Bun.env` or
 * `Deno.env`. The application is made by the first request, once per isolate.
 */
import { Auth, type AuthConfig, getSession } from "@latchkey/core";
import { verifyPassword } from "@latchkey/core/password";
import Credentials from "@latchkey/core/providers/credentials";

/** What the application reads: the secret, and the hash of Ada's password (made by the test). */
export interface CoreAppEnv {
  AUTH_SECRET?: string | undefined;
  PASSWORD_HASH?: string | undefined;
}

/** Ada, the one user: her password is checked against `PASSWORD_HASH`. */
export const ADA = { id: "u1", name: "Ada Lovelace", email: "ada@example.com" };

/** The application for `env`. */
function coreApp(env: CoreAppEnv): { fetch(request: Request): Promise<Response> } {
  const hash = env.PASSWORD_HASH ?? "";
  const config: AuthConfig = {
    secret: env.AUTH_SECRET,
    trustHost: true,
    basePath: "/auth",
    providers: [
      Credentials({
        credentials: { email: { type: "email" }, password: { type: "password" } },
        authorize: async ({ email, password }) =>
          email === ADA.email && typeof password === "string" && (await verifyPassword(password, hash)) ? ADA : null,
      }),
    ],
  };
  return {
    async fetch(request) {
      const { pathname } = new URL(request.url);
      if (pathname.startsWith("/auth/")) return Auth(request, config);
      if (pathname === "/me") return Response.json(await getSession(request, config));
      return new Response("Not found", { status: 404 });
    },
  };
}

let app: ReturnType<typeof coreApp> | undefined;

export default {
  fetch(request: Request, env: CoreAppEnv): Promise<Response> {
    app ??= coreApp(env);
    return app.fetch(request);
  },
};
