/**
 * Sign in with Vipps MobilePay (OpenID Connect), discovered from
 * `https://api.vipps.no/access-management-1.0/access/`; pass
 * `issuer: "https://apitest.vipps.no/access-management-1.0/access/"` for the test environment.
 *
 * The user is read from the UserInfo endpoint (`idToken: false`): the id_token carries only `sub`.
 * The scope is `openid name email`; add `phoneNumber`, `address`, `birthDate` or `nin` to
 * `authorization.params.scope` for more. `state` and `nonce` are checked besides PKCE. Vipps
 * says whether it verified the address (`email_verified`).
 *
 * - Callback URL to register (Redirect URI, in the Vipps portal's Login settings):
 *   `<origin>/auth/callback/vipps`
 * - Environment variables: `AUTH_VIPPS_ID`, `AUTH_VIPPS_SECRET`
 *
 * @example
 * ```ts
 * import Vipps from "@latchkey/core/providers/vipps"
 * Vipps({ clientId: process.env.AUTH_VIPPS_ID, clientSecret: process.env.AUTH_VIPPS_SECRET })
 * ```
 * @see https://developer.vippsmobilepay.com/docs/APIs/login-api/
 * @module providers/vipps
 */
import { defaultProfile } from "../lib/base/profile.js";
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** A postal address of a Vipps user. */
export interface VippsAddress {
  address_type: string;
  country: string;
  formatted: string;
  postal_code: string;
  region: string;
  street_address: string;
}

/** Vipps' UserInfo answer; most fields come only with their scope. */
export interface VippsProfile extends Record<string, unknown> {
  accounts: { account_name: string; account_number: number; bank_name: string }[];
  address: VippsAddress;
  other_addresses: VippsAddress[];
  birthdate: string;
  email: string;
  email_verified: boolean;
  family_name: string;
  given_name: string;
  name: string;
  nin: string;
  phone_number: string;
  sid: string;
  sub: string;
  delegatedConsents: {
    language: string;
    heading: string;
    termsDescription: string;
    confirmConsentButtonText: string;
    links: {
      termsLinkText: string;
      termsLinkUrl: string;
      privacyStatementLinkText: string;
      privacyStatementLinkUrl: string;
    };
    timeOfConsent: string;
    consents: { id: string; accepted: boolean; required: boolean; textDisplayedToUser: string }[];
  };
}

export default function Vipps(options: OIDCUserConfig<VippsProfile> = {}): OIDCConfig<VippsProfile> {
  return {
    id: "vipps",
    name: "Vipps",
    type: "oidc",
    issuer: "https://api.vipps.no/access-management-1.0/access/",
    authorization: { params: { scope: "openid name email" } },
    idToken: false,
    checks: ["pkce", "state", "nonce"],
    profile: defaultProfile,
    style: { brandColor: "#ff5b24", bg: "#ff5b24", text: "#ffffff" },
    options,
  };
}
