/** The provider token fields `getAccessToken` keeps and hands out. */
import { fromBase64url, fromUtf8 } from "#platform";
import type { Account, TokenSet } from "../../shapes/data.js";

/** The tokens of one provider as a JWT session keeps them (`token.providerTokens[providerId]`). */
export interface ProviderTokens {
  providerAccountId: string;
  /**
   * The subject and issuer of the sign-in's id_token, which a refreshed id_token must repeat
   * (OIDC Core §12.2); absent for a provider that gave none (and in tokens from before they were kept).
   */
  sub?: string;
  iss?: string;
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
export function tokenFields(tokens: Partial<TokenSet>): Partial<ProviderTokens> {
  const out: Partial<ProviderTokens> = {};
  // A refresh answer always has one (oauth4webapi checks it); an account's is checked by its caller.
  if (typeof tokens.access_token === "string") out.access_token = tokens.access_token;
  if (typeof tokens.refresh_token === "string") out.refresh_token = tokens.refresh_token;
  if (typeof tokens.expires_at === "number") out.expires_at = tokens.expires_at;
  if (typeof tokens.token_type === "string") out.token_type = tokens.token_type;
  if (typeof tokens.scope === "string") out.scope = tokens.scope;
  return out;
}

/**
 * The `sub` and `iss` of an id_token this application verified and stored itself (at sign-in),
 * read without checking again; undefined when it has none or they cannot be read.
 *
 * @example
 * ```ts
 * idTokenSubjectOf(account.id_token) // { sub: "248289761001", iss: "https://accounts.google.com" }
 * ```
 */
export function idTokenSubjectOf(idToken: unknown): { sub: string; iss: string } | undefined {
  if (typeof idToken !== "string") return undefined;
  try {
    const claims = JSON.parse(fromUtf8(fromBase64url(idToken.split(".")[1] ?? ""))) as {
      sub?: unknown;
      iss?: unknown;
    };
    return typeof claims.sub === "string" && typeof claims.iss === "string"
      ? { sub: claims.sub, iss: claims.iss }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Whose tokens these are: the account id, and the sign-in id_token's `sub` and `iss` when known. */
export function identityOf(tokens: ProviderTokens): Pick<ProviderTokens, "providerAccountId" | "sub" | "iss"> {
  const out: Pick<ProviderTokens, "providerAccountId" | "sub" | "iss"> = {
    providerAccountId: tokens.providerAccountId,
  };
  if (typeof tokens.sub === "string") out.sub = tokens.sub;
  if (typeof tokens.iss === "string") out.iss = tokens.iss;
  return out;
}

/**
 * The provider tokens a JWT session keeps from a sign-in's account (`accessTokens.jwt`), or
 * undefined for an account without an access token.
 */
export function providerTokensOf(account: Account | null | undefined): ProviderTokens | undefined {
  if (!account || (account.type !== "oauth" && account.type !== "oidc")) return undefined;
  if (typeof account.access_token !== "string") return undefined;
  return {
    providerAccountId: account.providerAccountId,
    ...idTokenSubjectOf(account.id_token),
    ...tokenFields(account),
  };
}
