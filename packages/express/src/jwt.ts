/**
 * Session tokens for Express applications: `getToken`, `encode` and `decode` of
 * `@latchkey/core/jwt`, here so that an application depending only on `@latchkey/express` (as
 * strict installers such as pnpm require) can read a token without naming the core package.
 *
 * @example
 * ```ts
 * import { getToken } from "@latchkey/express/jwt"
 * app.get("/api/me", async (req, res) => {
 *   const token = await getToken({ req, secret: process.env.AUTH_SECRET! })
 *   res.json(token ?? { signedOut: true })
 * })
 * ```
 * @module @latchkey/express/jwt
 */
export * from "@latchkey/core/jwt";
