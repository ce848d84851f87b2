/**
 * Session tokens for Hono applications: `getToken`, `encode` and `decode` of `@latchkey/core/jwt`,
 * so that an application depending only on `@latchkey/hono` can read a token.
 *
 * @example
 * ```ts
 * import { getToken } from "@latchkey/hono/jwt"
 * app.get("/api/me", async (c) => c.json((await getToken({ req: c.req.raw, secret: process.env.AUTH_SECRET! })) ?? {}))
 * ```
 * @module @latchkey/hono/jwt
 */
export * from "@latchkey/core/jwt";
