/**
 * What to set so that a built-in provider issues a refresh token, named in the error
 * `getAccessToken` throws when an account or session has none (`cause.reason: "no-refresh-token"`).
 * Keyed by the built-in provider id; each from the provider's documentation (see
 * docs/refresh-tokens.md for the sources).
 */
const HINTS: Readonly<Record<string, string>> = {
  google:
    'Google issues a refresh token only with `access_type: "offline"`, and only when the user consents: set ' +
    '`Google({ authorization: { params: { access_type: "offline", prompt: "consent" } } })` and have the user sign in again',
  "microsoft-entra-id":
    "Microsoft Entra ID issues a refresh token only for the scope `offline_access`: add it to `authorization.params.scope` and have the user sign in again",
  salesforce:
    "Salesforce issues a refresh token only for the scope `refresh_token` (allowed in the connected app): add it to `authorization.params.scope` and have the user sign in again",
  dropbox:
    'Dropbox issues a refresh token only with `token_access_type: "offline"` (the built-in default): keep it in `authorization.params` and have the user sign in again',
};

/**
 * The sentence telling what provider `providerId` needs to issue a refresh token, or a general
 * one for any other provider.
 *
 * @example
 * ```ts
 * refreshTokenHint("google") // 'Google issues a refresh token only with `access_type: "offline"` ...'
 * ```
 */
export function refreshTokenHint(providerId: string): string {
  const hint = Object.hasOwn(HINTS, providerId) ? HINTS[providerId] : undefined;
  return (
    hint ??
    "ask the provider for offline access as its documentation says (often the scope `offline_access`) and have the user sign in again"
  );
}
