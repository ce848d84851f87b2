/** `requireApiKey` for Next.js: core's API-key guard around a Route Handler. */
import {
  type ApiKeyPrincipal,
  type ApiKeyRequirement,
  type ApiKeysApi,
  requireApiKey as keyOrRefusal,
} from "@latchkey/core/api-keys";

/**
 * Wraps a Route Handler for machines that call it with an API key (`Authorization: Bearer <key>`
 * or `X-API-Key`): with a valid key carrying `scopes`, the handler runs with the key's principal
 * on `req.apiKey`; anything else is answered by core's refusal (400, 401, 403, 429 or 503, JSON,
 * `WWW-Authenticate`). The key's limit counts the request once, here.
 *
 * @example
 * ```ts
 * // app/api/reports/route.ts
 * export const GET = requireApiKey(keys, { scopes: ["reports:read"] }, async (req) => Response.json(await reportsOf(req.apiKey.owner)))
 * ```
 */
export function requireApiKey<R extends Request, C>(
  keys: ApiKeysApi,
  required: ApiKeyRequirement,
  handler: (req: R & { apiKey: ApiKeyPrincipal }, ctx: C) => Response | Promise<Response>,
): (req: R, ctx: C) => Promise<Response> {
  return async (req, ctx) => {
    const key = await keyOrRefusal(req, keys, required);
    if (key instanceof Response) return key;
    const augmented = req as R & { apiKey: ApiKeyPrincipal };
    augmented.apiKey = key;
    return handler(augmented, ctx);
  };
}
