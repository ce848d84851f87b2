/** The provider token fields `getAccessToken` keeps and hands out. */
import type { Account, TokenSet } from "../../shapes/data.js";

/** The tokens of one provider as a JWT session keeps them (`token.providerTokens[providerId]`). */
export interface ProviderTokens {
  providerAccountId: string;
  access_token?: string;
  refresh_token?: string;
  /** Absolute, in seconds (spec §2.3). */
  expires_at?: number;
  token_type?: string;
  scope?: string;
  /** Set when the provider refused the refresh token for good: the user must sign in again. */
  error?: "RefreshTokenRevoked";
}

/** The token fields worth keeping from a refresh answer. */
export function tokenFields(tokens: TokenSet): Partial<ProviderTokens> {
  const out: Partial<ProviderTokens> = { access_token: tokens.access_token as string };
  if (typeof tokens.refresh_token === "string") out.refresh_token = tokens.refresh_token;
  if (typeof tokens.expires_at === "number") out.expires_at = tokens.expires_at;
  if (typeof tokens.token_type === "string") out.token_type = tokens.token_type;
  if (typeof tokens.scope === "string") out.scope = tokens.scope;
  return out;
}

/**
 * The provider tokens a JWT session keeps from a sign-in's account (`accessTokens.jwt`), or
 * undefined for an account without an access token.
 */
export function providerTokensOf(account: Account | null | undefined): ProviderTokens | undefined {
  if (!account || (account.type !== "oauth" && account.type !== "oidc")) return undefined;
  if (typeof account.access_token !== "string") return undefined;
  return { providerAccountId: account.providerAccountId, ...tokenFields(account as TokenSet) };
}
