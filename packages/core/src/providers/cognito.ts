/**
 * Sign in with Amazon Cognito user pools (OpenID Connect). The issuer is the user pool's URL,
 * `https://cognito-idp.<region>.amazonaws.com/<user pool id>`.
 *
 * - Callback URL to register (Allowed callback URLs): `<origin>/auth/callback/cognito`
 * - Environment variables: `AUTH_COGNITO_ID`, `AUTH_COGNITO_SECRET`, `AUTH_COGNITO_ISSUER`
 *
 * @example
 * ```ts
 * import Cognito from "@latchkey/core/providers/cognito"
 * Cognito({
 *   clientId: process.env.AUTH_COGNITO_ID,
 *   clientSecret: process.env.AUTH_COGNITO_SECRET,
 *   issuer: "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf123",
 * })
 * ```
 * @see https://docs.aws.amazon.com/cognito/latest/developerguide/cognito-userpools-server-contract-reference.html
 * @module providers/cognito
 */
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of a Cognito ID token. */
export interface CognitoProfile {
  sub: string;
  iss: string;
  aud: string;
  token_use: "id";
  auth_time: number;
  exp: number;
  iat: number;
  "cognito:username": string;
  "cognito:groups"?: string[];
  email?: string;
  email_verified?: boolean;
  phone_number?: string;
  phone_number_verified?: boolean;
  name?: string;
  given_name?: string;
  family_name?: string;
  picture?: string;
  identities?: Array<{ providerName: string; providerType: string; userId: string; primary: string }>;
  [claim: string]: unknown;
}

export default function Cognito(options: OIDCUserConfig<CognitoProfile> = {}): OIDCConfig<CognitoProfile> {
  return {
    id: "cognito",
    name: "Cognito",
    type: "oidc",
    issuer: options.issuer,
    profile(profile) {
      return {
        id: profile.sub,
        name: profile.name ?? profile["cognito:username"],
        email: profile.email ?? null,
        image: profile.picture ?? null,
      };
    },
    style: { brandColor: "#dd344c", bg: "#232f3e", text: "#ffffff" },
    options,
  };
}
