/**
 * Latchkey for Fastify 5: a plugin serving the actions under its prefix, `getSession(request)`,
 * and a `preHandler` guard (`fastify.requireAuth()`) that sets `request.session`. Forms are parsed
 * by Fastify (a parser for `application/x-www-form-urlencoded` is added to the plugin's routes
 * when the application has none) and Latchkey's log lines go to `fastify.log`.
 *
 * @example
 * ```ts
 * import Fastify from "fastify"
 * import latchkey, { getSession } from "@latchkey/fastify"
 * import GitHub from "@latchkey/fastify/providers/github"
 *
 * const app = Fastify({ logger: true })
 * await app.register(latchkey, { prefix: "/auth", providers: [GitHub] }) // AUTH_SECRET, AUTH_GITHUB_ID/SECRET from the environment
 * app.get("/", async (request) => (await getSession(request))?.user ?? "Not signed in")
 * app.get("/account", { preHandler: app.requireAuth() }, async (request) => request.session.user)
 * await app.listen({ port: 3000 })
 * ```
 * @module @latchkey/fastify
 */
import type { AuthConfig, Session } from "@latchkey/core";
import type { ApiKeyPrincipal } from "@latchkey/core/api-keys";
import {
  finalizeResponse,
  type GuardOptions,
  guard,
  MAX_BODY_BYTES,
  nodeIncoming,
  serve,
  sessionReadOf,
  shellConfig,
  structuredLogger,
} from "@latchkey/core/internal";
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from "fastify";

export { customFetch, skipCSRFCheck } from "@latchkey/core";
export * from "@latchkey/core/errors";
export type * from "@latchkey/core/types";
export { requireApiKey } from "./api-keys.js";

declare module "fastify" {
  interface FastifyInstance {
    /**
     * A `preHandler` for routes that need a signed-in user: `request.session` is then set. A
     * browser without a session is redirected to sign in (this URL as `callbackUrl`), another
     * client gets `401 {"error":"SessionRequired"}`; `factors`, `amr` and `factorPage` demand a
     * second factor as for `@latchkey/express`'s `requireAuth`.
     * @example
     * ```ts
     * app.get("/account", { preHandler: app.requireAuth() }, async (request) => request.session.user)
     * ```
     */
    requireAuth(options?: GuardOptions): preHandlerAsyncHookHandler;
  }
  interface FastifyRequest {
    /** The signed-in session, set by `fastify.requireAuth()` (null on other routes). */
    session: Session;
  }
}

const kConfig = Symbol.for("@latchkey/fastify.config");
const FORM = "application/x-www-form-urlencoded";

/** The configuration the plugin registered for the request's application. */
function configOf(request: FastifyRequest): AuthConfig {
  const config = (request.server as unknown as { [kConfig]?: AuthConfig })[kConfig];
  if (!config) throw new Error("@latchkey/fastify: register the plugin first: `await app.register(latchkey, config)`.");
  return config;
}

/**
 * Where a request arrived (Fastify's `trustProxy` applied, so Latchkey's is not applied again) and
 * its cookies.
 */
function arrival(request: FastifyRequest) {
  return { protocol: request.protocol, host: request.host, arrivalDecided: true, cookieHeader: request.headers.cookie };
}

/** Writes the pipeline's answer through `reply` (one `Set-Cookie` header per cookie). */
function send(reply: FastifyReply, answer: Parameters<typeof finalizeResponse>[0]) {
  const { status, headers, body } = finalizeResponse(answer);
  reply.code(status);
  for (const [name, value] of headers) reply.header(name, value);
  return reply.send(body ?? undefined);
}

/**
 * The session of a request, or null (the plugin's configuration, read as `GET /auth/session`
 * reads it, but setting no cookie: it has no reply to set one on). It never throws: a missing
 * secret, an untrusted host and a failing session store are logged and give null.
 *
 * @example
 * ```ts
 * app.get("/", async (request) => ((await getSession(request))?.user?.name ?? "Not signed in"))
 * ```
 */
export async function getSession(request: FastifyRequest): Promise<Session | null> {
  return (await sessionReadOf(arrival(request), configOf(request), { env: process.env, reissue: false })).session;
}

/**
 * The plugin: `app.register(latchkey, { prefix: "/auth", ...config })` serves the actions under
 * `prefix` (default `/auth`, which is then the base path) and decorates the application with
 * `requireAuth` and `request.session`. Without a `logger` in the configuration, Latchkey logs
 * through `fastify.log`.
 *
 * @example
 * ```ts
 * await app.register(latchkey, { prefix: "/auth", providers: [Credentials({ ... })] })
 * ```
 */
async function latchkey(fastify: FastifyInstance, options: AuthConfig & { prefix?: string }): Promise<void> {
  const { prefix = "/auth", ...auth } = options;
  // The plugin's prefix is the base path. The options are the application's configuration less
  // the prefix (a new object, as `register` takes them); the core keeps limits, revocations and
  // caches per application (by its secrets), so they are one application with its own object.
  auth.basePath = `${fastify.prefix}${prefix}`.replace(/\/+$/, "");
  const config = shellConfig(auth, { logger: structuredLogger(fastify.log) });
  fastify.decorate(kConfig as unknown as string, config);
  fastify.decorateRequest("session", null as unknown as Session);
  fastify.decorateRequest("apiKey", null as unknown as ApiKeyPrincipal);
  fastify.decorate("requireAuth", (guardOptions: GuardOptions = {}): preHandlerAsyncHookHandler => {
    const check = guard(config, guardOptions);
    return async function requireSession(request, reply) {
      const result = await check(
        { ...arrival(request), accept: request.headers.accept, url: request.url },
        {
          env: process.env,
        },
      );
      if (result.response) return send(reply, result.response);
      request.session = result.session;
    };
  });
  await fastify.register(
    async (scope) => {
      // Forms arrive as text and the pipeline parses them as it parses every body (the first of a
      // repeated field wins); a form parser the application registered is used as it is.
      if (!scope.hasContentTypeParser(FORM))
        scope.addContentTypeParser(FORM, { parseAs: "string" }, (_request, body, done) => done(null, body));
      scope.route({
        method: ["GET", "POST"],
        url: "/*",
        bodyLimit: MAX_BODY_BYTES,
        handler: async (request, reply) => {
          const incoming = nodeIncoming(request.raw, config, {
            ...arrival(request),
            path: request.url,
            peer: request.ip,
            // Fastify read the body (within the route's bodyLimit): a form as text, JSON parsed.
            parsed: () => (request.body ?? "") as string | Record<string, unknown>,
          });
          const answer = await serve(incoming, config, { env: process.env });
          return send(reply, answer);
        },
      });
    },
    { prefix },
  );
}

// Registered in the application's own context (as `fastify-plugin` does), so that `requireAuth`
// and `request.session` reach every route; the actions get a child context under the prefix.
Object.assign(latchkey, {
  [Symbol.for("skip-override")]: true,
  [Symbol.for("fastify.display-name")]: "@latchkey/fastify",
});

export default latchkey;
