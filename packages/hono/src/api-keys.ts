/** `requireApiKey` for Hono: core's API-key guard, its principal on `c.get("apiKey")`, its refusal returned. */
import {
  type ApiKeyPrincipal,
  type ApiKeyRequirement,
  type ApiKeysApi,
  requireApiKey as keyOrRefusal,
} from "@latchkey/core/api-keys";
import type { MiddlewareHandler } from "hono";

/** The context variable `requireApiKey` sets: `c.get("apiKey")`. */
export type ApiKeyVariables = { Variables: { apiKey: ApiKeyPrincipal } };

/**
 * Middleware for routes that machines call with an API key (`Authorization: Bearer <key>` or
 * `X-API-Key`): a valid key carrying `scopes` puts its principal on `c.get("apiKey")`; anything
 * else is answered by core's refusal (400, 401, 403, 429 or 503, JSON, `WWW-Authenticate`). The
 * key's limit counts this request once, here.
 *
 * @example
 * ```ts
 * const keys = ApiKeys(config, { store: SqlApiKeyStore(db), organizations: orgs })
 * app.get("/api/reports", requireApiKey(keys, { scopes: ["reports:read"] }), (c) => c.json(reportsOf(c.get("apiKey").owner)))
 * ```
 */
export function requireApiKey(keys: ApiKeysApi, required: ApiKeyRequirement = {}): MiddlewareHandler<ApiKeyVariables> {
  return async function apiKeyGuard(c, next) {
    const key = await keyOrRefusal(c.req.raw, keys, required);
    if (key instanceof Response) return key;
    c.set("apiKey", key);
    await next();
  };
}
