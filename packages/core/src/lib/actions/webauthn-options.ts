import type { ResponseInternal } from "../../shapes/data.js";
import { RateLimited } from "../base/errors.js";
import { WEBAUTHN_SCRIPT } from "../flows/webauthn/config.js";
import type { RequestInternal } from "../http/request.js";
import { reserveWebAuthnOptions } from "../limits/attempts.js";
import type { Context } from "../serve/context.js";

/**
 * `GET /webauthn-options/<provider>`: the options of a WebAuthn ceremony (spec §2.11). It exists
 * only when `experimental.enableWebAuthn` is on and the provider is a WebAuthn provider (spec §4);
 * otherwise it answers 404. `GET /webauthn-script.js` (parsed as this action) serves the sign-in
 * page's browser code under the same condition.
 *
 * The options need no session and no CSRF token and each answer stores a challenge, so they are
 * rate limited per client address (`rateLimit.webauthnOptionsPerIp`): past the limit the answer
 * is `429` JSON with `Retry-After`, whatever the client accepts (it is fetched by script).
 */
export async function webauthnOptions(req: RequestInternal, ctx: Context): Promise<ResponseInternal> {
  const { config } = ctx;
  if (config.experimental.enableWebAuthn) {
    // The flow (and its optional peer) loads on the first WebAuthn request, not with the router.
    if (req.providerId === WEBAUTHN_SCRIPT && config.providers.some((p) => p.type === "webauthn"))
      return (await import("../flows/webauthn/index.js")).webauthnScriptResponse();
    if (ctx.provider?.type === "webauthn") {
      try {
        await reserveWebAuthnOptions(req, ctx);
      } catch (e) {
        if (!(e instanceof RateLimited)) throw e;
        config.logger.error(e);
        return {
          status: 429,
          headers: { "Content-Type": "application/json", "Retry-After": String(e.retryAfter) },
          body: { error: "RateLimited", message: "Too many WebAuthn options requests; retry later" },
        };
      }
      return (await import("../flows/webauthn/index.js")).webauthnOptionsFlow(req, ctx, ctx.provider);
    }
  }
  return {
    status: 404,
    headers: { "Content-Type": "application/json" },
    body: { error: "NotFound", message: `No WebAuthn provider ${JSON.stringify(req.providerId ?? "")} is enabled` },
  };
}
