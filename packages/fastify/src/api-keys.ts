/** `requireApiKey` for Fastify: core's API-key guard as a `preHandler`, its principal on `request.apiKey`. */
import { type ApiKeyPrincipal, type ApiKeyRequirement, type ApiKeysApi, verifyApiKey } from "@latchkey/core/api-keys";
import type { preHandlerAsyncHookHandler } from "fastify";

declare module "fastify" {
  interface FastifyRequest {
    /** The verified API key's principal, set by `requireApiKey` (null on other routes). */
    apiKey: ApiKeyPrincipal;
  }
}

/**
 * A `preHandler` for routes that machines call with an API key (`Authorization: Bearer <key>` or
 * `X-API-Key`): a valid key carrying `scopes` puts its principal on `request.apiKey`; anything
 * else is answered by core's refusal (400, 401, 403, 429 or 503, JSON, `WWW-Authenticate`). The
 * Node.js request is read, so an `Authorization` sent twice (which Node.js hides from
 * `request.headers`) is refused as malformed.
 *
 * @example
 * ```ts
 * const keys = ApiKeys(config, { store: SqlApiKeyStore(db), organizations: orgs })
 * app.get("/api/reports", { preHandler: requireApiKey(keys, { scopes: ["reports:read"] }) }, async (request) => reportsOf(request.apiKey.owner))
 * ```
 */
export function requireApiKey(keys: ApiKeysApi, required: ApiKeyRequirement = {}): preHandlerAsyncHookHandler {
  return async function apiKeyGuard(request, reply) {
    const check = await verifyApiKey(request.raw, keys, required);
    if (check.ok) {
      request.apiKey = check.key;
      return;
    }
    reply.code(check.status).headers(check.headers);
    return check.body ? reply.type("application/json").send(JSON.stringify(check.body)) : reply.send();
  };
}
