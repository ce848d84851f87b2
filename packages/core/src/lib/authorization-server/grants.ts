/**
 * Grants: a user's consent to a client, the scopes and resources it covers. Every code, refresh
 * family and opaque token names the grant it came from, so ending a grant ends them all at once
 * (and, with a revocation list, its JWT access tokens too).
 */
import type { ServerState } from "./config.js";
import { randomToken } from "./crypto.js";
import { dataOf, type GrantData, isGrantData } from "./records.js";
import { revokeAccessTokens } from "./tokens.js";

/** The kinds of record that belong to a grant and end with it. */
const OF_GRANT = ["code", "spent-code", "family", "token"] as const;

/** The user's grant to `clientId`, or null. */
export async function grantOf(server: ServerState, userId: string, clientId: string): Promise<GrantData | null> {
  const grants = await server.store.find("grant", { userId });
  for (const record of grants) {
    const grant = dataOf(record, isGrantData);
    if (grant && grant.clientId === clientId && grant.userId === userId) return grant;
  }
  return null;
}

/** Whether `grant` covers every scope and resource asked for. */
export function covers(grant: GrantData | null, scopes: readonly string[], resources: readonly string[]): boolean {
  return (
    !!grant && scopes.every((s) => grant.scopes.includes(s)) && resources.every((r) => grant.resources.includes(r))
  );
}

/**
 * The grant of `userId` to `clientId` widened by `scopes` and `resources` (made when there is
 * none): the user consented to them.
 */
export async function grant(
  server: ServerState,
  userId: string,
  clientId: string,
  scopes: readonly string[],
  resources: readonly string[],
): Promise<GrantData> {
  const existing = await grantOf(server, userId, clientId);
  if (!existing) await keepGrantedClient(server, clientId);
  const data: GrantData = existing
    ? {
        ...existing,
        scopes: [...new Set([...existing.scopes, ...scopes])],
        resources: [...new Set([...existing.resources, ...resources])],
      }
    : {
        grantId: randomToken(16),
        userId,
        clientId,
        scopes: [...scopes],
        resources: [...resources],
        createdAt: Date.now(),
      };
  await server.store.set({
    kind: "grant",
    id: data.grantId,
    data: { ...data },
    userId,
    clientId,
    grantId: data.grantId,
    version: 1,
  });
  return data;
}

/**
 * Keeps for good a client kept only while unused (a dynamic registration, `unusedSeconds`): a
 * user is granting it something. Compare-and-set, so an admin change made meanwhile is kept.
 */
async function keepGrantedClient(server: ServerState, clientId: string): Promise<void> {
  const record = await server.store.get("client", clientId);
  if (!record || record.expiresAt === undefined) return;
  const { expiresAt: _unused, ...kept } = record;
  await server.store.swap({ ...kept, version: record.version + 1 });
}

/** Whether grant `grantId` still stands (a code or refresh token of an ended one is refused). */
export async function grantStands(server: ServerState, grantId: string): Promise<boolean> {
  return dataOf(await server.store.get("grant", grantId), isGrantData) !== null;
}

/**
 * Ends a grant and everything issued under it: its codes, refresh families and opaque tokens are
 * deleted, and its JWT access tokens are refused by the revocation list (when the server has one).
 */
export async function endGrant(server: ServerState, grantId: string): Promise<void> {
  await server.store.delete("grant", grantId);
  await server.store.deleteWhere({ grantId }, OF_GRANT);
  await revokeAccessTokens(server, { grant: grantId });
}
