/**
 * The server reading back an access token it issued (UserInfo, introspection, revocation): a JWT
 * verified against its own keys (`typ: at+jwt`, its issuer, its algorithms), or an opaque token
 * found by digest; then whether it still stands (its grant and refresh family, and the revocation
 * list when there is one).
 */
import { jwtVerify } from "jose";
import type { ServerState } from "./config.js";
import { digest } from "./crypto.js";
import { grantStands } from "./grants.js";
import { dataOf, isStrings, isTokenClaims, type TokenClaims } from "./records.js";
import { accessTokenVerdict } from "./tokens.js";

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const OPAQUE_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** The claims of `token` if this server issued it and it has not expired (revocations aside); null otherwise. */
export async function openAccessToken(
  server: ServerState,
  token: string,
): Promise<{ claims: TokenClaims; opaque: boolean } | null> {
  if (OPAQUE_SHAPE.test(token)) {
    const claims = dataOf(await server.store.get("token", digest(token)), isTokenClaims);
    return claims && claims.exp * 1000 > Date.now() ? { claims, opaque: true } : null;
  }
  if (!JWT_SHAPE.test(token) || token.length > 16_384) return null;
  try {
    const { payload } = await jwtVerify(token, await server.keys.verifier(), {
      issuer: server.issuer,
      typ: "at+jwt",
      algorithms: [...server.algorithms],
      clockTolerance: 15,
    });
    const aud = typeof payload.aud === "string" ? [payload.aud] : payload.aud;
    const claims = { ...payload, aud };
    return isTokenClaims(claims) && isStrings(aud) ? { claims, opaque: false } : null;
  } catch {
    return null;
  }
}

/**
 * Whether an opened token still stands: its grant and refresh family exist, and the revocation
 * list (when the server has one, and it is current) does not refuse it.
 */
async function stillStands(server: ServerState, claims: TokenClaims): Promise<boolean> {
  if (claims.gid !== undefined && !(await grantStands(server, claims.gid))) return false;
  if (claims.fid !== undefined && !(await server.store.get("family", claims.fid))) return false;
  if (claims.gid === undefined && !(await server.store.get("client", claims.client_id))) return false;
  const revocation = server.revocation;
  if (!revocation) return true;
  await revocation.list.start();
  return accessTokenVerdict(revocation.list, claims) === "valid";
}

/** The claims of a live access token this server issued, or null. */
export async function liveAccessToken(server: ServerState, token: string): Promise<TokenClaims | null> {
  const opened = await openAccessToken(server, token);
  return opened && (await stillStands(server, opened.claims)) ? opened.claims : null;
}
