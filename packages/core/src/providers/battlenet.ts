/**
 * Sign in with Battle.net (Blizzard; OpenID Connect). The issuer is `https://oauth.battle.net`, or
 * `https://oauth.battlenet.com.cn` for China.
 *
 * Battle.net shares no e-mail address or picture: the user is the BattleTag.
 *
 * - Callback URL to register (Redirect URLs): `<origin>/auth/callback/battlenet`
 * - Environment variables: `AUTH_BATTLENET_ID`, `AUTH_BATTLENET_SECRET`, optionally
 *   `AUTH_BATTLENET_ISSUER`
 *
 * @example
 * ```ts
 * import BattleNet from "@latchkey/core/providers/battlenet"
 * BattleNet({ clientId: process.env.AUTH_BATTLENET_ID, clientSecret: process.env.AUTH_BATTLENET_SECRET })
 * ```
 * @see https://develop.battle.net/documentation/guides/using-oauth
 * @module providers/battlenet
 */
import type { OIDCConfig, OIDCUserConfig } from "./oauth.js";

/** The claims of a Battle.net ID token. */
export interface BattleNetProfile {
  sub: string;
  battle_tag: string;
  iss: string;
  aud: string;
  exp: number;
  iat: number;
  azp?: string;
  nonce?: string;
  at_hash?: string;
  [claim: string]: unknown;
}

export type BattleNetIssuer = "https://oauth.battle.net" | "https://oauth.battlenet.com.cn" | (string & {});

export default function BattleNet(options: OIDCUserConfig<BattleNetProfile> = {}): OIDCConfig<BattleNetProfile> {
  return {
    id: "battlenet",
    name: "Battle.net",
    type: "oidc",
    issuer: (options.issuer as BattleNetIssuer | undefined) ?? "https://oauth.battle.net",
    profile(profile) {
      return { id: profile.sub, name: profile.battle_tag, email: null, image: null };
    },
    style: { brandColor: "#148eff", bg: "#148eff", text: "#ffffff" },
    options,
  };
}
