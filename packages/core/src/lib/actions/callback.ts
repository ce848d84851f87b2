import { InvalidProvider } from "../../errors.js";
import type { ResponseInternal } from "../../shapes/data.js";
import type { Context } from "../context.js";
import { credentialsCallback } from "../flows/credentials.js";
import type { RequestInternal } from "../request.js";

/** `GET|POST /callback/<provider>`: completes the provider's flow and redirects. */
export async function callback(req: RequestInternal, ctx: Context): Promise<ResponseInternal> {
  const provider = ctx.provider;
  if (!provider) throw new InvalidProvider(`No provider with the id "${req.providerId ?? ""}" is configured`);
  switch (provider.type) {
    case "credentials":
      return credentialsCallback(req, ctx);
    case "oauth":
    case "oidc": {
      const { oauthCallback } = await import("../flows/oauth/index.js");
      return oauthCallback(req, ctx, provider);
    }
    case "email": {
      const { emailCallback } = await import("../flows/email/index.js");
      return emailCallback(req, ctx, provider);
    }
    case "totp": {
      const { secondFactorCallback } = await import("../flows/second-factor/index.js");
      return secondFactorCallback(req, ctx, provider);
    }
    case "webauthn": {
      const { webauthnCallback } = await import("../flows/webauthn/index.js");
      return webauthnCallback(req, ctx, provider);
    }
    default:
      throw new InvalidProvider(`Provider "${req.providerId ?? ""}" has no callback`);
  }
}
