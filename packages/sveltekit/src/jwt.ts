/**
 * Session tokens for SvelteKit applications: `getToken`, `encode` and `decode` of
 * `@latchkey/core/jwt`, so that an application depending only on `@latchkey/sveltekit` can read a
 * token.
 *
 * @example
 * ```ts
 * import { getToken } from "@latchkey/sveltekit/jwt"
 * export const GET = async ({ request }) => Response.json(await getToken({ req: request, secret: env.AUTH_SECRET }))
 * ```
 * @module @latchkey/sveltekit/jwt
 */
export * from "@latchkey/core/jwt";
