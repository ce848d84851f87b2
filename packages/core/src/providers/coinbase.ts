/**
 * Sign in with Coinbase (OAuth 2, Coinbase App API).
 *
 * - Callback URL to register: `<origin>/auth/callback/coinbase`
 * - Environment variables: `AUTH_COINBASE_ID`, `AUTH_COINBASE_SECRET`
 *
 * @example
 * ```ts
 * import Coinbase from "@latchkey/core/providers/coinbase"
 * Coinbase({ clientId: process.env.AUTH_COINBASE_ID, clientSecret: process.env.AUTH_COINBASE_SECRET })
 * ```
 * @see https://docs.cdp.coinbase.com/coinbase-app/docs/coinbase-app-reference
 * @module providers/coinbase
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The answer of `GET https://api.coinbase.com/v2/user`. */
export interface CoinbaseProfile {
  data: {
    id: string;
    name: string;
    username: string | null;
    profile_location: string | null;
    profile_bio: string | null;
    profile_url: string | null;
    avatar_url: string;
    resource: "user";
    resource_path: string;
    /** With the `wallet:user:email` scope. */
    email?: string;
    legacy_id?: string;
    time_zone?: string;
    native_currency?: string;
    bitcoin_unit?: string;
    country?: { code: string; name: string; is_in_europe: boolean };
    created_at?: string;
  };
  [claim: string]: unknown;
}

export default function Coinbase(options: OAuthUserConfig<CoinbaseProfile> = {}): OAuthConfig<CoinbaseProfile> {
  return {
    id: "coinbase",
    name: "Coinbase",
    type: "oauth",
    authorization: {
      url: "https://login.coinbase.com/oauth2/auth",
      params: { scope: "wallet:user:read wallet:user:email" },
    },
    token: "https://login.coinbase.com/oauth2/token",
    userinfo: "https://api.coinbase.com/v2/user",
    profile({ data }) {
      return { id: data.id, name: data.name, email: data.email ?? null, image: data.avatar_url };
    },
    style: { brandColor: "#0052ff", bg: "#0052ff", text: "#ffffff" },
    options,
  };
}
