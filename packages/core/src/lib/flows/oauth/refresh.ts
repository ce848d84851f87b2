/**
 * The refresh grant (RFC 6749 §6) against a provider's token endpoint, through oauth4webapi and
 * the provider's own client authentication, `customFetch` and `token.conform`, exactly as the code
 * redemption of the callback does it.
 */
import * as o from "oauth4webapi";
import type { TokenSet } from "../../../shapes/data.js";
import {
  callbackError,
  clientAuthentication,
  clientOf,
  conformed,
  forgetStaleMetadata,
  normalizeTokens,
} from "./code-exchange.js";
import { authorizationServer, httpOptions, type OAuthProvider } from "./discovery.js";

/** What a refresh attempt ended with. */
export type RefreshOutcome =
  | { ok: true; tokens: TokenSet }
  /** The grant is gone for good (`invalid_grant`): only the user can get a new one. */
  | { ok: false; revoked: true; message: string }
  /** Anything else: unreachable provider, another error answer, a malformed response. */
  | { ok: false; revoked: false; message: string };

/**
 * Redeems `refreshToken` at the provider. The answer's `expires_at` is computed from its
 * `expires_in` (spec §2.3); a provider that does not rotate (no `refresh_token` in the answer)
 * keeps the old one. Never throws: the outcome says whether the failure is final.
 *
 * @example
 * ```ts
 * const outcome = await refreshGrant(provider, account.refresh_token)
 * if (outcome.ok) outcome.tokens.access_token
 * ```
 */
export async function refreshGrant(provider: OAuthProvider, refreshToken: string): Promise<RefreshOutcome> {
  try {
    const as = await authorizationServer(provider, { token: true });
    const client = clientOf(provider);
    const response = await conformed(
      provider,
      await o.refreshTokenGrantRequest(as, client, clientAuthentication(provider), refreshToken, {
        ...httpOptions(provider, as.token_endpoint),
      } as o.TokenEndpointRequestOptions),
    );
    const processed = await o.processRefreshTokenResponse(as, client, response);
    const tokens = normalizeTokens({ ...processed });
    if (typeof tokens.access_token !== "string" || tokens.access_token === "") {
      throw new Error("the refresh answer has no access_token");
    }
    if (typeof tokens.refresh_token !== "string" || tokens.refresh_token === "") tokens.refresh_token = refreshToken;
    return { ok: true, tokens };
  } catch (e) {
    forgetStaleMetadata(e, provider);
    const error = callbackError(e, provider, "refresh token request");
    // `invalid_grant` is the one answer that says the refresh token itself is dead (RFC 6749 §5.2):
    // revoked, expired, or already used. Everything else may pass and is worth a later retry.
    const revoked = e instanceof o.ResponseBodyError && e.error === "invalid_grant";
    return { ok: false, revoked, message: error.message };
  }
}
