/**
 * Session tokens for Fastify applications: `getToken`, `encode` and `decode` of `@latchkey/core/jwt`,
 * so that an application depending only on `@latchkey/fastify` can read a token.
 *
 * @example
 * ```ts
 * import { getToken } from "@latchkey/fastify/jwt"
 * app.get("/api/me", async (request) => (await getToken({ req: request, secret: process.env.AUTH_SECRET! })) ?? {})
 * ```
 * @module @latchkey/fastify/jwt
 */
export * from "@latchkey/core/jwt";
