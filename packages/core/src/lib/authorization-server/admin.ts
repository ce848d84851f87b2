/**
 * The server's operations outside requests: the admin API (register, change, rotate the secret
 * of, list and remove clients; end a user's grants) and the users' side (the applications a user
 * authorised, and revoking one of them at once).
 */
import { InvalidConfiguration } from "../base/errors.js";
import { checkRegistration, loadClient, newSecret, publicClient, usesSecret } from "./clients.js";
import type { ServerState } from "./config.js";
import { randomToken } from "./crypto.js";
import { endGrant } from "./grants.js";
import type { Client, ClientRegistration } from "./options.js";
import { type ClientData, dataOf, isClientData, isGrantData } from "./records.js";
import { revokeAccessTokens } from "./tokens.js";

/** The kinds of record that name a client and end with it. */
const OF_CLIENT = ["grant", "interaction", "code", "spent-code", "family", "token", "jti"] as const;

/**
 * Registers a client. Answers it with its id, and for a client that authenticates with a secret,
 * the secret: shown this once (only its digest is kept).
 */
export async function registerClient(
  server: ServerState,
  registration: ClientRegistration,
): Promise<{ client: Client; clientSecret?: string }> {
  const { data, secret } = await storeNewClient(server, checkRegistration(server, registration));
  return { client: publicClient(data), ...(secret !== undefined && { clientSecret: secret }) };
}

/**
 * Stores a new client of `checked` registration under a random id, with a secret when its method
 * uses one (only the digest kept); answers it and the secret. `origin` marks a client not
 * registered through this API (dynamic registration); `expiresAt`, a client kept only until then
 * unless a user grants it something (`keepGrantedClient`).
 */
export async function storeNewClient(
  server: ServerState,
  checked: Omit<ClientData, "clientId" | "secrets" | "createdAt" | "origin">,
  origin?: ClientData["origin"],
  expiresAt?: number,
): Promise<{ data: ClientData; secret: string | undefined }> {
  const secret = usesSecret(checked.tokenEndpointAuthMethod) ? await newSecret() : undefined;
  const data: ClientData = {
    ...checked,
    clientId: randomToken(16),
    secrets: secret ? [{ digest: secret.digest }] : [],
    createdAt: Date.now(),
    ...(origin !== undefined && { origin }),
  };
  await server.store.set({
    kind: "client",
    id: data.clientId,
    data: { ...data },
    clientId: data.clientId,
    ...(expiresAt !== undefined && { expiresAt }),
    version: 1,
  });
  return { data, secret: secret?.secret };
}

async function existing(server: ServerState, clientId: string): Promise<ClientData> {
  const client = typeof clientId === "string" ? await loadClient(server, clientId) : null;
  if (!client) throw new InvalidConfiguration(`No client ${JSON.stringify(clientId)} is registered`);
  return client;
}

/** How often a change of a stored client is tried again when the record changed under it. */
const REWRITE_ATTEMPTS = 5;

/**
 * Replaces a stored client's data with `change(client)`, keeping what the admin API does not set:
 * the record's expiry (a dynamic registration kept only while unused stays so) and, through
 * `change`, its `origin` (so it still counts toward `maxClients`). Compare-and-set, so a grant made
 * meanwhile, which keeps the client for good (`keepGrantedClient`), is not undone.
 */
async function rewriteClient(
  server: ServerState,
  clientId: string,
  change: (client: ClientData) => Promise<ClientData> | ClientData,
): Promise<ClientData> {
  for (let attempt = 0; attempt < REWRITE_ATTEMPTS; attempt++) {
    const record = typeof clientId === "string" ? await server.store.get("client", clientId) : null;
    const client = dataOf(record, isClientData);
    if (!record || !client) {
      await existing(server, clientId);
      throw new InvalidConfiguration(
        `Client ${JSON.stringify(clientId)} is not registered here: its metadata document is its registration`,
      );
    }
    const data = await change(client);
    if (await server.store.swap({ ...record, data: { ...data }, version: record.version + 1 })) return data;
  }
  throw new Error(`Client ${clientId} kept changing while it was being updated: try again`);
}

/**
 * Changes a client's registration (the fields given replace the registered ones; the id, the
 * secrets, and for a dynamic registration its origin and unused expiry stay). Narrowing its
 * scopes or resources does not shrink what users already granted; end those grants with
 * {@link endClientGrants} when it must.
 */
export async function updateClient(
  server: ServerState,
  clientId: string,
  changes: Partial<ClientRegistration>,
): Promise<Client> {
  const data = await rewriteClient(server, clientId, (client) => {
    const { clientId: _id, secrets, createdAt, origin, ...registered } = client;
    const checked = checkRegistration(server, { ...registered, ...changes });
    if (usesSecret(client.tokenEndpointAuthMethod) !== usesSecret(checked.tokenEndpointAuthMethod))
      throw new InvalidConfiguration(
        "A client cannot switch between secret and non-secret authentication: register a new one",
      );
    return { ...checked, clientId, secrets, createdAt, ...(origin !== undefined && { origin }) };
  });
  return publicClient(data);
}

/**
 * Gives a client a new secret (answered this once). The old one keeps working for `graceSeconds`
 * (default 0: at once it no longer does), so a deployment can roll over.
 */
export async function rotateClientSecret(
  server: ServerState,
  clientId: string,
  options: { graceSeconds?: number } = {},
): Promise<string> {
  const grace = options.graceSeconds ?? 0;
  if (!Number.isSafeInteger(grace) || grace < 0)
    throw new InvalidConfiguration("`graceSeconds` must be a whole number, 0 or more");
  const secret = await newSecret();
  await rewriteClient(server, clientId, (client) => {
    if (!usesSecret(client.tokenEndpointAuthMethod))
      throw new InvalidConfiguration(`Client ${clientId} does not authenticate with a secret`);
    const now = Date.now();
    const kept =
      grace > 0
        ? client.secrets
            .filter((s) => s.expiresAt === undefined || s.expiresAt > now)
            .map((s) => ({
              digest: s.digest,
              expiresAt: Math.min(s.expiresAt ?? Number.POSITIVE_INFINITY, now + grace * 1000),
            }))
        : [];
    return { ...client, secrets: [{ digest: secret.digest }, ...kept] };
  });
  return secret.secret;
}

/** Removes a client and everything issued to it: grants, codes, refresh tokens, opaque and (with a revocation list) JWT access tokens. */
export async function removeClient(server: ServerState, clientId: string): Promise<boolean> {
  const removed = await server.store.delete("client", clientId);
  await server.store.deleteWhere({ clientId }, OF_CLIENT);
  await revokeAccessTokens(server, { client: clientId });
  return removed;
}

/** A registered client, or null. */
export async function getClient(server: ServerState, clientId: string): Promise<Client | null> {
  const client = typeof clientId === "string" ? await loadClient(server, clientId) : null;
  return client ? publicClient(client) : null;
}

/** Every registered client. */
export async function listClients(server: ServerState): Promise<Client[]> {
  return (await server.store.find("client"))
    .map((r) => dataOf(r, isClientData))
    .filter((c) => c !== null)
    .map(publicClient)
    .sort((a, b) => a.createdAt - b.createdAt);
}

/** An application a user authorised, as the user's page lists it. */
export interface AuthorizedApp {
  clientId: string;
  name: string;
  scopes: string[];
  resources: string[];
  /** Epoch milliseconds of the first consent. */
  since: number;
}

/** The applications `userId` authorised, oldest first. */
export async function authorizedApps(server: ServerState, userId: string): Promise<AuthorizedApp[]> {
  const apps: AuthorizedApp[] = [];
  for (const record of await server.store.find("grant", { userId })) {
    const grant = dataOf(record, isGrantData);
    if (!grant || grant.userId !== userId) continue;
    const client = await loadClient(server, grant.clientId);
    if (!client) continue;
    apps.push({
      clientId: client.clientId,
      name: client.name,
      scopes: grant.scopes,
      resources: grant.resources,
      since: grant.createdAt,
    });
  }
  return apps.sort((a, b) => a.since - b.since);
}

/**
 * Ends what `userId` granted `clientId`, or every client when `clientId` is omitted: the grants,
 * and at once their codes, refresh tokens and access tokens. Answers how many grants ended.
 */
export async function endGrants(server: ServerState, userId: string, clientId?: string): Promise<number> {
  let ended = 0;
  for (const record of await server.store.find("grant", { userId })) {
    const grant = dataOf(record, isGrantData);
    if (!grant || grant.userId !== userId || (clientId !== undefined && grant.clientId !== clientId)) continue;
    await endGrant(server, grant.grantId);
    ended++;
  }
  return ended;
}

/** Ends every user's grant to `clientId` (after narrowing what it may ask for, say). */
export async function endClientGrants(server: ServerState, clientId: string): Promise<void> {
  await existing(server, clientId);
  for (const record of await server.store.find("grant", { clientId })) await endGrant(server, record.id);
}
