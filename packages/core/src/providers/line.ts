/**
 * Sign in with LINE (LINE Login v2.1, OpenID Connect, discovered from `https://access.line.me`).
 * LINE signs ID tokens of the web login with HS256 and the channel secret.
 *
 * - Callback URL to register: `<origin>/auth/callback/line`
 * - Environment variables: `AUTH_LINE_ID` (Channel ID), `AUTH_LINE_SECRET` (Channel secret)
 *
 * The `email` claim needs the e-mail permission, applied for in the LINE Developers Console.
 *
 * @example
 * ```ts
 * import Line from "@latchkey/core/providers/line"
 * Line({ clientId: process.env.AUTH_LINE_ID, clientSecret: process.env.AUTH_LINE_SECRET })
 * ```
 * @see https://developers.line.biz/en/docs/line-login/integrate-line-login/
 * @module providers/line
 */
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of a LINE ID token. */
export interface LineProfile {
  iss: "https://access.line.me";
  sub: string;
  aud: string;
  exp: number;
  iat: number;
  auth_time?: number;
  nonce?: string;
  amr: string[];
  name?: string;
  picture?: string;
  email?: string;
  [claim: string]: unknown;
}

export default function Line(options: OIDCUserConfig<LineProfile> = {}): OIDCConfig<LineProfile> {
  return {
    id: "line",
    name: "LINE",
    type: "oidc",
    issuer: "https://access.line.me",
    authorization: { params: { scope: "openid profile email" } },
    client: { token_endpoint_auth_method: "client_secret_post", id_token_signed_response_alg: "HS256" },
    profile(profile) {
      return {
        id: profile.sub,
        name: profile.name ?? null,
        email: profile.email ?? null,
        image: profile.picture ?? null,
      };
    },
    style: { brandColor: "#06c755", bg: "#06c755", text: "#ffffff" },
    options,
  };
}
