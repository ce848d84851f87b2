/**
 * A provider for any OpenID Connect provider without a built-in provider: give its id, name and
 * issuer; the endpoints come from `<issuer>/.well-known/openid-configuration`. Without a `profile`
 * callback the user is read from the standard claims `sub`, `name`, `email` and `picture`.
 *
 * - Callback URL to register: `<origin>/auth/callback/<id>`
 * - Environment variables: `AUTH_<ID>_ID`, `AUTH_<ID>_SECRET`, `AUTH_<ID>_ISSUER` (the id
 *   upper-cased, `-` as `_`)
 *
 * @example
 * ```ts
 * import { OIDC } from "@latchkey/core/providers/generic-oidc"
 * OIDC({
 *   id: "corp",
 *   name: "Corp SSO",
 *   issuer: "https://sso.corp.test",
 *   clientId: process.env.AUTH_CORP_ID,
 *   clientSecret: process.env.AUTH_CORP_SECRET,
 * })
 * ```
 * @module providers/generic-oidc
 */
import type { Profile } from "../shapes/data.js";
import { defaultProfile } from "./generic-oauth.js";
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The options of {@link OIDC}: an id, a name and the issuer are required. */
export type GenericOIDCOptions<P> = OIDCUserConfig<P> & Required<Pick<OIDCConfig<P>, "id" | "name" | "issuer">>;

/** Creates an OpenID Connect provider from its issuer. */
export function OIDC<P = Profile>(options: GenericOIDCOptions<P>): OIDCConfig<P> {
  for (const name of ["id", "name", "issuer"] as const) {
    const value = options?.[name];
    if (typeof value !== "string" || value === "") throw new TypeError(`OIDC(): \`${name}\` is required.`);
  }
  return {
    id: options.id,
    name: options.name,
    type: "oidc",
    issuer: options.issuer,
    profile: (profile) => defaultProfile(profile as Profile),
    style: { brandColor: "#3b3b3b", bg: "#ffffff", text: "#1f1f1f" },
    options,
  };
}

export default OIDC;
