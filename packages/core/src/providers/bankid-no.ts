/**
 * Sign in with BankID Norge (BankID with OpenID Connect), discovered from
 * `https://auth.bankid.no/auth/realms/prod`; pass the pre-production realm as `issuer` to test.
 *
 * BankID departs from the usual OpenID Connect client in three ways this provider sets up: the
 * client authenticates with `client_secret_post`; the user is read from the UserInfo endpoint,
 * which answers a JWT signed with RS256 (its claims and its signature are checked against
 * BankID's published keys, as an id_token's are); and the authorization request asks for
 * Norwegian (`ui_locales: "no"`) and the BankID app (`login_hint: "BIS"`). `state` and `nonce`
 * are checked besides PKCE. BankID proves who the user is, not an e-mail address: `email`, when
 * the user shared one, is not taken as proven.
 *
 * - Callback URL to register: `<origin>/auth/callback/bankid-no`
 * - Environment variables: `AUTH_BANKID_NO_ID`, `AUTH_BANKID_NO_SECRET`
 *
 * @example
 * ```ts
 * import BankIDNorway from "@latchkey/core/providers/bankid-no"
 * BankIDNorway({ clientId: process.env.AUTH_BANKID_NO_ID, clientSecret: process.env.AUTH_BANKID_NO_SECRET })
 * // Another IDP option (BankID on mobile), in English:
 * BankIDNorway({ authorization: { params: { login_hint: "BIM", ui_locales: "en" } } })
 * ```
 * @see https://confluence.bankidnorge.no/confluence/pdoidcl/technical-documentation/api/userinfo
 * @module providers/bankid-no
 */
import { defaultProfile } from "../lib/base/profile.js";
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of BankID's ID token and signed UserInfo answer. */
export interface BankIDNorwayProfile {
  exp: number;
  iat: number;
  auth_time: number;
  jti: string;
  iss: string;
  /** The client id. */
  aud: string;
  sub: string;
  typ: "ID";
  /** The client id. */
  azp: string;
  session_state: string;
  at_hash: string;
  name: string;
  given_name: string;
  family_name: string;
  birthdate: string;
  updated_at: number;
  /** The IDP option and its level of assurance, such as `urn:bankid:bid;LOA=4`. */
  acr: string;
  sid: string;
  /** The IDP option the user signed in with: BankID (`BID`), BankID on mobile (`BIM`), the BankID app (`BIS`). */
  amr: "BID" | "BIM" | "BIS";
  /** The serial number of the user's BankID certificate. */
  bankid_altsub: string;
  originator: string;
  additionalCertInfo: {
    certValidFrom: number;
    serialNumber: string;
    keyAlgorithm: string;
    keySize: string;
    policyOid: string;
    certQualified: boolean;
    certValidTo: number;
    versionNumber: string;
    subjectName: string;
  };
  tid: string;
  /** From the UserInfo endpoint only, with the `email` scope. */
  email?: string;
  /** The national identity number, with the `nnin_altsub` scope. */
  nnin_altsub?: string;
  [claim: string]: unknown;
}

export default function BankIDNorway(
  options: OIDCUserConfig<BankIDNorwayProfile> = {},
): OIDCConfig<BankIDNorwayProfile> {
  return {
    id: "bankid-no",
    name: "BankID Norge",
    type: "oidc",
    issuer: "https://auth.bankid.no/auth/realms/prod",
    client: { token_endpoint_auth_method: "client_secret_post", userinfo_signed_response_alg: "RS256" },
    // The profile is the signed UserInfo answer: it has the e-mail address, the id_token has not.
    idToken: false,
    authorization: { params: { ui_locales: "no", login_hint: "BIS" } },
    checks: ["pkce", "state", "nonce"],
    isEmailVerified: false,
    profile: defaultProfile,
    style: { brandColor: "#39134c", bg: "#39134c", text: "#ffffff" },
    options,
  };
}
