/**
 * The data of API keys (`@latchkey/core/api-keys`): a key's record as stored (never the key
 * itself: its keyed hash) and the store that keeps them. Plain shapes: this file imports nothing.
 */

/** A per-key limit: at most `max` requests within `windowSeconds`. */
export interface ApiKeyRateLimit {
  max: number;
  windowSeconds: number;
}

/**
 * One API key as stored. The key itself (`<prefix>_<id>_<secret>`) is shown once, when it is
 * made; the store keeps `hash`, its HMAC-SHA-256 under a key derived from the configuration's
 * secret, and finds the record by `id`, the public part of the key.
 */
export interface ApiKeyRecord {
  /** The public part of the key (16 lower-case hex digits): how the record is found, and how lists name it. */
  id: string;
  /** HMAC-SHA-256 of the whole key, base64url. */
  hash: string;
  /** What its creator called it. */
  name: string;
  /** A user's key: that user. An organization's key: the member who made it. */
  userId: string;
  /** An organization's key: the organization; a user's key: null. */
  organizationId: string | null;
  /** What the key may do: `resource:action` permissions, each held by its creator when it was made. */
  scopes: string[];
  createdAt: Date;
  /** Null: it never expires. */
  expiresAt: Date | null;
  /** When a request last used it, written at most once per interval; null before its first use. */
  lastUsedAt: Date | null;
  /** When it was revoked (or replaced by a rotation); null while it is live. */
  revokedAt: Date | null;
  /** Null: no limit of its own. */
  rateLimit: ApiKeyRateLimit | null;
}

/** Whose keys a list asks for. */
export type ApiKeyOwner =
  | { userId: string; organizationId?: undefined }
  | { organizationId: string; userId?: undefined };

/**
 * Where API keys are kept. Each method is one atomic step: a store shared by several instances
 * (SQL, Redis) makes it one statement, transaction or script. Verification reads `getApiKey` on
 * every request, so a revocation written by any instance holds on every other at its next request.
 */
export interface ApiKeyStore {
  /** Stores a new key; its `id` is new (random). */
  createApiKey(record: ApiKeyRecord): Promise<void>;
  getApiKey(id: string): Promise<ApiKeyRecord | null>;
  /** A user's own keys (not their organizations'), or an organization's keys, oldest first, revoked ones included. */
  listApiKeys(owner: ApiKeyOwner): Promise<ApiKeyRecord[]>;
  /** Sets `revokedAt` of a live key; false when there is no such key or it was already revoked. */
  revokeApiKey(id: string, at: Date): Promise<boolean>;
  /** Revokes the live key `id` and stores `replacement`, both or neither; false when `id` is missing or revoked. */
  rotateApiKey(id: string, at: Date, replacement: ApiKeyRecord): Promise<boolean>;
  /** Sets `lastUsedAt` to `at` when it is null or earlier than `before` (so that it is written at most once per interval). */
  touchApiKey(id: string, at: Date, before: Date): Promise<void>;
}
