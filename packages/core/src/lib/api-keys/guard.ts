/**
 * The guard every framework uses: `verifyApiKey` answers with the key's principal or the refusal,
 * `requireApiKey` with the principal or the Web `Response` to send. A framework package only
 * converts its request in and that `Response` out.
 */
import type { ApiKeyInput } from "./presented.js";
import type { ApiKeyCheck, ApiKeyPrincipal, ApiKeysApi } from "./service.js";

/** What a route asks of the key. */
export interface ApiKeyRequirement {
  /** Every one of these must be among the key's scopes. */
  scopes?: readonly string[];
}

/**
 * Checks the API key `input` presents (a `Request`, `Headers`, a Node.js request, or the
 * `Authorization` / `X-API-Key` value).
 *
 * @example
 * ```ts
 * const check = await verifyApiKey(request, keys, { scopes: ["reports:read"] })
 * if (!check.ok) return Response.json(check.body, { status: check.status, headers: check.headers })
 * check.key.owner // { type: "organization", id: "..." }
 * ```
 */
export function verifyApiKey(input: ApiKeyInput, keys: ApiKeysApi, required?: ApiKeyRequirement): Promise<ApiKeyCheck> {
  if (!keys || typeof keys.verify !== "function") {
    throw new TypeError("verifyApiKey: pass the object ApiKeys(config, { store }) made, as its second argument");
  }
  return keys.verify(input, required);
}

/** The refusal of a check as a Web `Response` (JSON body, `WWW-Authenticate`, never cached). */
function apiKeyRefusalResponse(check: Extract<ApiKeyCheck, { ok: false }>): Response {
  const headers = new Headers(check.headers);
  if (check.body) headers.set("content-type", "application/json");
  return new Response(check.body ? JSON.stringify(check.body) : null, { status: check.status, headers });
}

/**
 * The key's principal, or the `Response` refusing the request: for any framework that returns a
 * Web `Response` (Hono, Next.js route handlers, SvelteKit endpoints).
 *
 * @example
 * ```ts
 * const key = await requireApiKey(request, keys, { scopes: ["reports:read"] })
 * if (key instanceof Response) return key
 * return Response.json(await reportsOf(key.owner))
 * ```
 */
export async function requireApiKey(
  input: ApiKeyInput,
  keys: ApiKeysApi,
  required?: ApiKeyRequirement,
): Promise<ApiKeyPrincipal | Response> {
  const check = await verifyApiKey(input, keys, required);
  return check.ok ? check.key : apiKeyRefusalResponse(check);
}
