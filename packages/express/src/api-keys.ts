/** `requireApiKey` for Express: core's API-key guard, its answer written to `res`. */
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import { type ApiKeyPrincipal, type ApiKeyRequirement, type ApiKeysApi, verifyApiKey } from "@latchkey/core/api-keys";

type Next = (error?: unknown) => void;

/**
 * Middleware for routes that machines call with an API key (`Authorization: Bearer <key>` or
 * `X-API-Key`): a valid key carrying `scopes` puts its principal on `res.locals.apiKey`; anything
 * else is answered by core's refusal (400, 401, 403, 429 or 503, JSON, `WWW-Authenticate`).
 *
 * @example
 * ```ts
 * const keys = ApiKeys(authConfig, { store: SqlApiKeyStore(db), organizations: orgs })
 * app.get("/api/reports", requireApiKey(keys, { scopes: ["reports:read"] }), (req, res) => res.json(reportsOf(res.locals.apiKey.owner)))
 * ```
 */
export function requireApiKey(keys: ApiKeysApi, required: ApiKeyRequirement = {}) {
  return async function apiKeyGuard(
    req: { headers: IncomingHttpHeaders },
    res: ServerResponse & { locals: Record<string, unknown> & { apiKey?: ApiKeyPrincipal } },
    next: Next,
  ): Promise<void> {
    try {
      const check = await verifyApiKey(req, keys, required);
      if (check.ok) {
        res.locals.apiKey = check.key;
        return next();
      }
      res.statusCode = check.status;
      for (const [name, value] of Object.entries(check.headers)) res.setHeader(name, value);
      if (check.body) res.setHeader("content-type", "application/json");
      res.end(check.body ? JSON.stringify(check.body) : undefined);
    } catch (e) {
      next(e);
    }
  };
}
