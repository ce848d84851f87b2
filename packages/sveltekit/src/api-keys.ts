/** `requireApiKey` for SvelteKit: core's API-key guard for a `+server.ts` endpoint or `handle`. */
import {
  type ApiKeyPrincipal,
  type ApiKeyRequirement,
  type ApiKeysApi,
  requireApiKey as keyOrRefusal,
} from "@latchkey/core/api-keys";
import type { RequestEvent } from "@sveltejs/kit";

/**
 * The principal of the API key the request presents (`Authorization: Bearer <key>` or
 * `X-API-Key`), also put on `event.locals.apiKey`; or the `Response` refusing it (400, 401, 403,
 * 429 or 503, JSON, `WWW-Authenticate`) for the endpoint or hook to return. Call it once per
 * request: each call counts against the key's limit.
 *
 * @example
 * ```ts
 * // src/routes/api/reports/+server.ts
 * export async function GET(event) {
 *   const key = await requireApiKey(event, keys, { scopes: ["reports:read"] })
 *   if (key instanceof Response) return key
 *   return Response.json(await reportsOf(key.owner))
 * }
 * ```
 */
export async function requireApiKey(
  event: Pick<RequestEvent, "request" | "locals">,
  keys: ApiKeysApi,
  required: ApiKeyRequirement = {},
): Promise<ApiKeyPrincipal | Response> {
  const key = await keyOrRefusal(event.request, keys, required);
  if (!(key instanceof Response)) event.locals.apiKey = key;
  return key;
}
