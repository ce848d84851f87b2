/**
 * Sign in with Microsoft Entra ID (formerly Azure Active Directory), over OpenID Connect.
 *
 * The issuer picks who may sign in: `https://login.microsoftonline.com/<tenant-id>/v2.0` for one
 * organisation, `.../organizations/v2.0`, `.../consumers/v2.0` or `.../common/v2.0` (the default:
 * work, school and personal accounts).
 *
 * - Callback URL to register: `<origin>/auth/callback/microsoft-entra-id`
 * - Environment variables: `AUTH_MICROSOFT_ENTRA_ID_ID`, `AUTH_MICROSOFT_ENTRA_ID_SECRET`,
 *   `AUTH_MICROSOFT_ENTRA_ID_ISSUER`
 *
 * The address is never taken as proven (`isEmailVerified: false`): under a multi-tenant issuer any
 * tenant's administrator chooses `email` and `preferred_username`, so a user created by Entra has
 * no `emailVerified`, is never linked by e-mail, and loses the address to whoever proves it.
 * Pass `isEmailVerified: true` for a single tenant whose directory you trust.
 *
 * Set `profilePhotoSize` to read the user's photo from Microsoft Graph at sign-in (one more
 * request); without it `image` is `null`.
 *
 * @example
 * ```ts
 * import MicrosoftEntraID from "@latchkey/core/providers/microsoft-entra-id"
 * MicrosoftEntraID({
 *   clientId: process.env.AUTH_MICROSOFT_ENTRA_ID_ID,
 *   clientSecret: process.env.AUTH_MICROSOFT_ENTRA_ID_SECRET,
 *   issuer: "https://login.microsoftonline.com/8f5a5e0c-0000-4000-8000-000000000000/v2.0",
 * })
 * ```
 * @see https://learn.microsoft.com/en-us/entra/identity-platform/v2-protocols-oidc
 * @module providers/microsoft-entra-id
 */
import { toBase64 } from "#platform";
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of a Microsoft identity platform v2.0 ID token. */
export interface MicrosoftEntraIDProfile {
  sub: string;
  /** The user's object id in the tenant: stable across applications. */
  oid: string;
  tid: string;
  name: string;
  email?: string;
  preferred_username: string;
  nickname?: string;
  given_name?: string;
  family_name?: string;
  picture?: string;
  aud: string;
  iss: string;
  iat: number;
  nbf: number;
  exp: number;
  ver: "2.0";
  [claim: string]: unknown;
}

export interface MicrosoftEntraIDOptions extends OIDCUserConfig<MicrosoftEntraIDProfile> {
  /** Size of the photo read from Microsoft Graph at sign-in; leave unset to skip the request. */
  profilePhotoSize?: 48 | 64 | 96 | 120 | 240 | 360 | 432 | 504 | 648;
}

export default function MicrosoftEntraID(options: MicrosoftEntraIDOptions = {}): OIDCConfig<MicrosoftEntraIDProfile> {
  const { profilePhotoSize } = options;
  return {
    id: "microsoft-entra-id",
    name: "Microsoft Entra ID",
    type: "oidc",
    issuer: options.issuer ?? "https://login.microsoftonline.com/common/v2.0",
    // Entra sends no `email_verified`; `email` and `preferred_username` are whatever the signing-in
    // tenant's administrator typed (any tenant, under `common`). Set `isEmailVerified` for a
    // tenant whose addresses you trust.
    isEmailVerified: false,
    authorization: { params: { scope: "openid profile email User.Read" } },
    async profile(profile, tokens) {
      let image: string | null = null;
      if (profilePhotoSize && tokens.access_token) {
        // The ID token carries no picture; Graph serves the photo as bytes.
        const response = await fetch(
          `https://graph.microsoft.com/v1.0/me/photos/${profilePhotoSize}x${profilePhotoSize}/$value`,
          { headers: { Authorization: `Bearer ${tokens.access_token}` } },
        );
        if (response.ok) {
          const bytes = toBase64(new Uint8Array(await response.arrayBuffer()));
          image = `data:${response.headers.get("content-type") ?? "image/jpeg"};base64,${bytes}`;
        }
      }
      return {
        id: profile.sub,
        name: profile.name,
        email: profile.email ?? profile.preferred_username ?? null,
        image: image ?? profile.picture ?? null,
      };
    },
    style: { brandColor: "#0078d4", bg: "#0078d4", text: "#ffffff" },
    options,
  };
}
