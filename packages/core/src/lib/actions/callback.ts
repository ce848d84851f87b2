import type { ResponseInternal } from "../../shapes/data.js";
import { InvalidProvider } from "../base/errors.js";
import { credentialsCallback } from "../flows/credentials.js";
import type { RequestInternal } from "../http/request.js";
import type { Context } from "../serve/context.js";

/**
 * `GET|POST /callback/<provider>`: completes the provider's flow and redirects. The flows other
 * than credentials load on first use.
 */
export function callback(req: RequestInternal, ctx: Context): Promise<ResponseInternal> {
  const provider = ctx.provider;
  if (!provider) throw new InvalidProvider(`No provider with the id "${req.providerId ?? ""}" is configured`);
  switch (provider.type) {
    case "credentials":
      return credentialsCallback(req, ctx);
    case "oauth":
    case "oidc":
      return import("../flows/oauth/index.js").then(({ oauthCallback }) => oauthCallback(req, ctx, provider));
    case "email":
      return import("../flows/email/index.js").then(({ emailCallback }) => emailCallback(req, ctx, provider));
    case "totp":
      return import("../flows/second-factor/index.js").then(({ secondFactorCallback }) =>
        secondFactorCallback(req, ctx, provider),
      );
    case "webauthn":
      return import("../flows/webauthn/index.js").then(({ webauthnCallback }) => webauthnCallback(req, ctx, provider));
    default:
      throw new InvalidProvider(`Provider "${req.providerId ?? ""}" has no callback`);
  }
}
