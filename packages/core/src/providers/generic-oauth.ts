/**
 * A provider for any OAuth 2 server without a built-in provider: give its id, name and endpoints.
 * Without a `profile` callback the user is read from the common claims (`sub` or `id`, `name`,
 * `email`, `picture` or `avatar_url`).
 *
 * - Callback URL to register: `<origin>/auth/callback/<id>`
 * - Environment variables: `AUTH_<ID>_ID`, `AUTH_<ID>_SECRET` (the id upper-cased, `-` as `_`)
 *
 * @example
 * ```ts
 * import { OAuth } from "@latchkey/core/providers/generic-oauth"
 * OAuth({
 *   id: "acme",
 *   name: "Acme",
 *   authorization: { url: "https://id.acme.test/oauth/authorize", params: { scope: "profile email" } },
 *   token: "https://id.acme.test/oauth/token",
 *   userinfo: "https://api.acme.test/me",
 *   clientId: process.env.AUTH_ACME_ID,
 *   clientSecret: process.env.AUTH_ACME_SECRET,
 * })
 * ```
 * @module providers/generic-oauth
 */

import { defaultProfile } from "../lib/base/profile.js";
import type { Profile } from "../shapes/data.js";
import type { OAuth2Config, OAuthConfig, OAuthUserConfig } from "./oauth.js";

export { defaultProfile };

/** The options of {@link OAuth}: an id, a name and the authorization and token endpoints are required. */
export type GenericOAuthOptions<P> = OAuthUserConfig<P> &
  Required<Pick<OAuth2Config<P>, "id" | "name" | "authorization" | "token">>;

function requireOption(value: unknown, name: string, factory: string): void {
  if (value === undefined || value === null || value === "") {
    throw new TypeError(`${factory}: \`${name}\` is required.`);
  }
}

/** Creates an OAuth 2 provider from its endpoints. */
export function OAuth<P = Profile>(options: GenericOAuthOptions<P>): OAuthConfig<P> {
  requireOption(options?.id, "id", "OAuth()");
  requireOption(options.name, "name", "OAuth()");
  requireOption(options.authorization, "authorization", "OAuth()");
  requireOption(options.token, "token", "OAuth()");
  return {
    id: options.id,
    name: options.name,
    type: "oauth",
    authorization: options.authorization,
    token: options.token,
    userinfo: options.userinfo,
    profile: (profile) => defaultProfile(profile as Profile),
    style: { brandColor: "#3b3b3b", bg: "#ffffff", text: "#1f1f1f" },
    options,
  };
}

export default OAuth;
