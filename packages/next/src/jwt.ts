/**
 * Session tokens, as `next-auth/jwt` has them: `getToken`, `encode` and `decode` of
 * `@latchkey/core/jwt`, here so that an application depending only on `@latchkey/next` can read
 * a token without naming the core package.
 *
 * @example
 * ```ts
 * import { getToken } from "@latchkey/next/jwt"
 * export async function GET(req: Request) {
 *   const token = await getToken({ req, secret: process.env.AUTH_SECRET!, secureCookie: true })
 *   return Response.json(token ?? { signedOut: true })
 * }
 * ```
 * @module @latchkey/next/jwt
 */
export * from "@latchkey/core/jwt";
