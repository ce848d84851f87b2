/**
 * Sign in with Apple (OpenID Connect, discovered from `https://appleid.apple.com`).
 *
 * Apple answers with a form POST (`response_mode=form_post`), so the callback is a POST and the
 * session cookies must allow a cross-site POST. The user's name is sent once, in the `user` field
 * of the first callback; the ID token never has it. That field is unsigned (anyone can post it), so
 * only its name is read; the address comes from the ID token, proven by its `email_verified`.
 *
 * - Callback URL to register: `<origin>/auth/callback/apple` (HTTPS only, no localhost)
 * - Environment variables: `AUTH_APPLE_ID` (the Services ID), `AUTH_APPLE_SECRET` (a client secret
 *   JWT signed with your private key, valid for at most six months)
 *
 * @example
 * ```ts
 * import Apple from "@latchkey/core/providers/apple"
 * Apple({ clientId: process.env.AUTH_APPLE_ID, clientSecret: process.env.AUTH_APPLE_SECRET })
 * ```
 * @see https://developer.apple.com/documentation/sign_in_with_apple/sign_in_with_apple_rest_api
 * @module providers/apple
 */
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of an Apple ID token, and the `user` object Apple posts on the first sign-in. */
export interface AppleProfile {
  iss: "https://appleid.apple.com";
  aud: string;
  iat: number;
  exp: number;
  sub: string;
  at_hash?: string;
  email?: string;
  email_verified?: boolean | "true" | "false";
  /** True when the address is an Apple private relay address. */
  is_private_email?: boolean | "true" | "false";
  /** 0 unsupported, 1 unknown, 2 likely real. */
  real_user_status?: 0 | 1 | 2;
  transfer_sub?: string;
  nonce?: string;
  nonce_supported?: boolean;
  auth_time?: number;
  /** Only on the first sign-in, from the unsigned form field: Latchkey keeps its `name` only. */
  user?: { name?: { firstName?: string; lastName?: string } };
  [claim: string]: unknown;
}

export default function Apple(options: OIDCUserConfig<AppleProfile> = {}): OIDCConfig<AppleProfile> {
  return {
    id: "apple",
    name: "Apple",
    type: "oidc",
    issuer: "https://appleid.apple.com",
    authorization: { params: { scope: "name email", response_mode: "form_post" } },
    client: { token_endpoint_auth_method: "client_secret_post" },
    // Apple does not support PKCE.
    checks: ["nonce", "state"],
    profile(profile) {
      const name = [profile.user?.name?.firstName, profile.user?.name?.lastName].filter(Boolean).join(" ");
      // Only the signed id_token's address: the posted `user` field is unsigned (its name is all we take).
      return { id: profile.sub, name: name || null, email: profile.email ?? null, image: null };
    },
    style: { brandColor: "#000000", bg: "#000000", text: "#ffffff" },
    options,
  };
}
