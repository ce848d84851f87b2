/**
 * The OpenID Provider of the refresh tests: `oidc-provider` with one client ("latchkey") for an
 * application at `http://localhost:3000` signing in through the provider id "op", a refresh token
 * with every code, rotated on each use (a rotated token presented again revokes the grant). The
 * provider's request log counts its token-endpoint calls.
 */
import { type ClientMetadata, startOP, type TestOP } from "./op.js";

export const REFRESH_APP = "http://localhost:3000";
const CLIENT_ID = "latchkey";
const CLIENT_SECRET = "latchkey-secret";

export interface RefreshingOP extends TestOP {
  /** Calls of the token endpoint so far (code redemptions and refreshes). */
  tokenCalls(): number;
  /** Whether the provider accepts `accessToken` (its userinfo endpoint answers 200 with it). */
  accepts(accessToken: string): Promise<boolean>;
  /** Revokes a refresh token (RFC 7009), as a user removing the application's access does. */
  revoke(refreshToken: string): Promise<void>;
}

/**
 * Starts the provider; `accounts` adds users by login hint (read at each login, so a test may add
 * its own later).
 *
 * @example
 * ```ts
 * const op = await startRefreshingOP()
 * const before = op.tokenCalls()
 * ```
 */
export async function startRefreshingOP(accounts?: Record<string, Record<string, unknown>>): Promise<RefreshingOP> {
  const client: ClientMetadata = {
    client_id: CLIENT_ID,
    client_secret: CLIENT_SECRET,
    redirect_uris: [`${REFRESH_APP}/auth/callback/op`],
    grant_types: ["authorization_code", "refresh_token"],
  };
  const op = await startOP([client], { refreshTokens: true, accounts });
  const basic = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString("base64")}`;
  return {
    ...op,
    tokenCalls: () => op.requests.filter((r) => r.method === "POST" && r.path === "/token").length,
    async accepts(accessToken) {
      const response = await fetch(`${op.issuer}/me`, { headers: { authorization: `Bearer ${accessToken}` } });
      await response.body?.cancel();
      return response.status === 200;
    },
    async revoke(refreshToken) {
      const response = await fetch(`${op.issuer}/token/revocation`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic },
        body: new URLSearchParams({ token: refreshToken, token_type_hint: "refresh_token" }),
      });
      await response.body?.cancel();
      if (response.status !== 200) throw new Error(`the provider refused the revocation: HTTP ${response.status}`);
    },
  };
}
