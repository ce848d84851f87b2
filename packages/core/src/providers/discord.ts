/**
 * Sign in with Discord (OAuth 2).
 *
 * - Callback URL to register: `<origin>/auth/callback/discord`
 * - Environment variables: `AUTH_DISCORD_ID`, `AUTH_DISCORD_SECRET`
 *
 * @example
 * ```ts
 * import Discord from "@latchkey/core/providers/discord"
 * Discord({ clientId: process.env.AUTH_DISCORD_ID, clientSecret: process.env.AUTH_DISCORD_SECRET })
 * ```
 * @see https://discord.com/developers/docs/topics/oauth2
 * @module providers/discord
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The user object of the Discord API (`GET /users/@me`). */
export interface DiscordProfile {
  /** A snowflake, as a string. */
  id: string;
  username: string;
  /** `"0"` for users on the unique-username system. */
  discriminator: string;
  global_name: string | null;
  /** Hash of the avatar; animated avatars start with `a_`. */
  avatar: string | null;
  bot?: boolean;
  system?: boolean;
  mfa_enabled?: boolean;
  banner?: string | null;
  accent_color?: number | null;
  locale?: string;
  /** Whether the e-mail on this account has been verified (Discord's user object, scope `email`). */
  verified?: boolean;
  email?: string | null;
  flags?: number;
  premium_type?: 0 | 1 | 2 | 3;
  public_flags?: number;
  avatar_decoration_data?: { asset: string; sku_id: string } | null;
  [claim: string]: unknown;
}

/** The avatar's CDN URL, or the default avatar Discord assigns when there is none. */
function avatarUrl(profile: DiscordProfile): string {
  if (profile.avatar) {
    const format = profile.avatar.startsWith("a_") ? "gif" : "png";
    return `https://cdn.discordapp.com/avatars/${profile.id}/${profile.avatar}.${format}`;
  }
  const index =
    profile.discriminator === "0" || !profile.discriminator
      ? Number((BigInt(profile.id) >> 22n) % 6n)
      : Number.parseInt(profile.discriminator, 10) % 5;
  return `https://cdn.discordapp.com/embed/avatars/${index}.png`;
}

export default function Discord(options: OAuthUserConfig<DiscordProfile> = {}): OAuthConfig<DiscordProfile> {
  return {
    id: "discord",
    name: "Discord",
    type: "oauth",
    authorization: { url: "https://discord.com/oauth2/authorize", params: { scope: "identify email" } },
    token: "https://discord.com/api/oauth2/token",
    userinfo: "https://discord.com/api/users/@me",
    // Discord says whether it verified the address in `verified` (there is no `email_verified`).
    isEmailVerified: (profile) => profile.verified === true && typeof profile.email === "string",
    profile(profile) {
      return {
        id: profile.id,
        name: profile.global_name ?? profile.username,
        email: profile.email ?? null,
        image: avatarUrl(profile),
      };
    },
    style: { brandColor: "#5865f2", bg: "#5865f2", text: "#ffffff" },
    options,
  };
}
