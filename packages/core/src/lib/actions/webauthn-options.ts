import type { ResponseInternal } from "../../types.js";
import type { Context } from "../context.js";
import { WEBAUTHN_SCRIPT, webauthnOptionsFlow, webauthnScriptResponse } from "../flows/webauthn.js";
import type { RequestInternal } from "../request.js";

/**
 * `GET /webauthn-options/<provider>`: the options of a WebAuthn ceremony (spec §2.11). It exists
 * only when `experimental.enableWebAuthn` is on and the provider is a WebAuthn provider (spec §4);
 * otherwise it answers 404. `GET /webauthn-script.js` (parsed as this action) serves the sign-in
 * page's browser code under the same condition.
 */
export async function webauthnOptions(req: RequestInternal, ctx: Context): Promise<ResponseInternal> {
  const { config } = ctx;
  if (config.experimental.enableWebAuthn) {
    if (req.providerId === WEBAUTHN_SCRIPT && config.providers.some((p) => p.type === "webauthn"))
      return webauthnScriptResponse();
    if (ctx.provider?.type === "webauthn") return webauthnOptionsFlow(req, ctx, ctx.provider);
  }
  return {
    status: 404,
    headers: { "Content-Type": "application/json" },
    body: { error: "NotFound", message: `No WebAuthn provider ${JSON.stringify(req.providerId ?? "")} is enabled` },
  };
}
