/**
 * The refresh grant (RFC 6749 §6) against a provider's token endpoint, through oauth4webapi and
 * the provider's own client authentication, `customFetch` and `token.conform`, exactly as the code
 * redemption of the callback does it.
 */
import * as o from "oauth4webapi";
import { messageOf } from "../../base/error-of.js";
import type { RefreshOutcome } from "../../config/types.js";
import {
  callbackError,
  clientAuthentication,
  clientOf,
  conformed,
  forgetStaleMetadata,
  IdTokenRefusal,
  type IdTokenSubject,
  issuerForIdToken,
  normalizeTokens,
  verifyIdToken,
} from "./code-exchange.js";
import { authorizationServer, httpOptions, type OAuthProvider } from "./discovery.js";

/**
 * The refresh answer processed, its id_token (when it has one) checked exactly as at sign-in, and
 * against the account's subject. The answer is first processed without its id_token, so a failure
 * there is the answer's, and any later failure is the id_token's (`IdTokenRefusal`).
 */
async function processAnswer(
  provider: OAuthProvider,
  as: o.AuthorizationServer,
  client: o.Client,
  response: Response,
  expected: IdTokenSubject | undefined,
): Promise<o.TokenEndpointResponse> {
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => undefined);
  const withIdToken = !!body && typeof body === "object" && !Array.isArray(body) && Object.hasOwn(body, "id_token");
  if (!withIdToken) return o.processRefreshTokenResponse(as, client, response);
  const { id_token: _idToken, ...rest } = body as Record<string, unknown>;
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  await o.processRefreshTokenResponse(
    as,
    client,
    new Response(JSON.stringify(rest), { status: response.status, statusText: response.statusText, headers }),
  );
  let issuer: o.AuthorizationServer;
  let processed: o.TokenEndpointResponse;
  try {
    issuer = await issuerForIdToken(as, response);
    processed = await o.processRefreshTokenResponse(issuer, client, response);
  } catch (e) {
    throw new IdTokenRefusal("claims", `The id_token of provider "${provider.id}" was refused: ${messageOf(e)}`);
  }
  await verifyIdToken(provider, issuer, response, processed, expected);
  return processed;
}

/**
 * `promise`, or a rejection as soon as `deadline` aborts. Discovery is shared through a cache by
 * every request of the provider, so one refresh's deadline stops waiting for it rather than
 * aborting it for the others.
 */
function within<T>(promise: Promise<T>, deadline: AbortSignal | undefined): Promise<T> {
  if (!deadline) return promise;
  if (deadline.aborted) return Promise.reject(deadline.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(deadline.reason);
    deadline.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() => deadline.removeEventListener("abort", abort));
  });
}

/**
 * Redeems `refreshToken` at the provider, discovery and token request together ending when
 * `deadline` aborts (the single flight's lock must outlive them). The answer's `expires_at` is computed from its
 * `expires_in` (spec §2.3); a provider that does not rotate (no `refresh_token` in the answer)
 * keeps the old one. An id_token in the answer is verified as at sign-in (signature, claims,
 * `iat`) and must name `expected`, the account's subject (OIDC Core §12.2); otherwise the whole
 * answer is refused (`idToken` says why). Never throws: the outcome says whether the failure is final.
 *
 * @example
 * ```ts
 * const outcome = await refreshGrant(provider, account.refresh_token, deadline, { sub: account.providerAccountId })
 * if (outcome.ok) outcome.tokens.access_token
 * ```
 */
export async function refreshGrant(
  provider: OAuthProvider,
  refreshToken: string,
  deadline?: AbortSignal,
  expected?: IdTokenSubject,
): Promise<RefreshOutcome> {
  try {
    const as = await within(authorizationServer(provider, { token: true }), deadline);
    const client = clientOf(provider);
    const response = await conformed(
      provider,
      await o.refreshTokenGrantRequest(
        as,
        client,
        clientAuthentication(provider),
        refreshToken,
        httpOptions<"POST", URLSearchParams>(provider, as.token_endpoint, deadline),
      ),
    );
    const processed = await processAnswer(provider, as, client, response, expected);
    const tokens = normalizeTokens({ ...processed });
    if (typeof tokens.access_token !== "string" || tokens.access_token === "") {
      throw new Error("the refresh answer has no access_token");
    }
    if (typeof tokens.refresh_token !== "string" || tokens.refresh_token === "") tokens.refresh_token = refreshToken;
    return { ok: true, tokens };
  } catch (e) {
    if (deadline?.aborted) {
      return {
        ok: false,
        revoked: false,
        message: `Provider "${provider.id}" did not answer the refresh before its deadline (the refresh lock's lifetime); try again`,
      };
    }
    if (e instanceof IdTokenRefusal) return { ok: false, revoked: false, message: e.message, idToken: e.reason };
    forgetStaleMetadata(e, provider);
    const error = callbackError(e, provider, "refresh token request");
    // `invalid_grant` is the one answer that says the refresh token itself is dead (RFC 6749 §5.2):
    // revoked, expired, or already used. Everything else may pass and is worth a later retry.
    const revoked = e instanceof o.ResponseBodyError && e.error === "invalid_grant";
    return { ok: false, revoked, message: error.message };
  }
}
