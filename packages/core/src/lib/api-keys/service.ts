/**
 * API keys of an application: made for a user or for an organization, shown once, kept as a
 * keyed hash, and checked on every request by `verify`.
 *
 * The rules: a key's scopes are permissions its creator holds when it is made (a user's own:
 * `userScopes`; in an organization: their role's); an organization's keys are made, listed,
 * revoked and rotated by members whose role grants `managePermission`; a key of someone else
 * answers "not-found", as a missing one does. Verification reads the store on every request, so a
 * revocation on any instance holds on every other at its next request; a per-key limit counts each
 * request once, atomically in the rate-limit store; `lastUsedAt` is written at most once per
 * interval, by a conditional write, however many instances serve the key.
 */

import type { ApiKeyOwner, ApiKeyRateLimit, ApiKeyRecord, ApiKeyStore } from "../../shapes/api-keys.js";
import type { ApiKeyEvent } from "../../shapes/audit.js";
import type { Awaitable } from "../../shapes/data.js";
import type { RateLimitStore } from "../../shapes/rate-limit.js";
import { refuseBanned } from "../admin/config.js";
import { recordAudit } from "../audit/record.js";
import { held, slot } from "../base/application.js";
import { errorOf } from "../base/error-of.js";
import { AccessDenied, AdapterError } from "../base/errors.js";
import type { Env } from "../config/env.js";
import type { AuthConfig } from "../config/options.js";
import { resolveConfig } from "../config/resolve.js";
import { MemoryRateLimitStore } from "../limits/memory-store.js";
import { isKeyPrefix, keyHash, keyIdOf, keyMatches, newKey } from "./format.js";
import { type ApiKeyInput, presentedKey } from "./presented.js";

/** Why a call was refused. */
export type ApiKeyRefusal =
  /** No such key, or not one the acting user may manage (answered alike). */
  | "not-found"
  /** The acting user may not make or manage this organization's keys, or lacks a scope asked for. */
  | "forbidden"
  /** The name is not 1 to 100 visible characters. */
  | "invalid-name"
  /** A scope is not a `resource:action` permission, or the list is not an array of at most 100. */
  | "invalid-scopes"
  /** `expiresIn` is not a positive number of seconds (at most `maxExpiresIn`). */
  | "invalid-expiry"
  /** `rateLimit` is not `{ max: integer >= 1, windowSeconds: integer from 1 to a year }`. */
  | "invalid-rate-limit";

/** What a call answers: its value, or why it was refused. */
export type ApiKeyResult<T> = { ok: true; value: T } | { ok: false; reason: ApiKeyRefusal };

/** A key as lists show it: its record without the hash. */
export type ApiKeyView = Omit<ApiKeyRecord, "hash">;

/** A key just made: `key` is shown this once and never again. */
export interface CreatedApiKey {
  key: string;
  record: ApiKeyView;
}

/** Who a verified key speaks for. */
export interface ApiKeyPrincipal {
  /** The key's public id. */
  id: string;
  name: string;
  /** A user's key: `{ type: "user", id: userId }`; an organization's: `{ type: "organization", id: organizationId }`. */
  owner: { type: "user" | "organization"; id: string };
  /** A user's key: its user. An organization's key: the member who made it. */
  userId: string;
  organizationId: string | null;
  scopes: string[];
  expiresAt: Date | null;
}

/** What `verify` answers: the key's principal, or the refusal to send back. */
export type ApiKeyCheck =
  | { ok: true; key: ApiKeyPrincipal }
  | {
      ok: false;
      /** 400 a malformed request, 401 no key or one that is not valid, 403 a scope missing, 429 the key's limit, 503 the store failed. */
      status: 400 | 401 | 403 | 429 | 503;
      /** Absent when the request carried no key (RFC 6750 §3.1). */
      error?: "invalid_request" | "invalid_token" | "insufficient_scope" | "rate_limited" | "temporarily_unavailable";
      /** `WWW-Authenticate`, `Cache-Control: no-store`, and `Retry-After` for 429 and 503. */
      headers: Record<string, string>;
      body: { error: string; error_description: string } | null;
    };

export interface ApiKeysOptions {
  /** Where keys are kept (`MemoryApiKeyStore`, or a shared store). */
  store: ApiKeyStore;
  /**
   * The application's organizations (`Organizations(...)` of `@latchkey/core/organizations`):
   * needed for organization keys, whose scopes are checked against the creator's role there.
   */
  organizations?: { can(userId: string, organizationId: string, permission: `${string}:${string}`): Promise<boolean> };
  /**
   * The permissions a user may put on their own keys: a list, or a function of the user's id.
   * @default none (a user's keys carry no scopes: they say who the user is, nothing more)
   */
  userScopes?: readonly string[] | ((userId: string) => Awaitable<readonly string[]>);
  /** The permission a member needs to make, list, revoke and rotate an organization's keys. @default "organization:update" */
  managePermission?: `${string}:${string}`;
  /** The first part of every key, naming the application to a person or a secret scanner. @default "lk" */
  prefix?: string;
  /** The longest life of a key, in seconds (`expiresIn` beyond it is refused). @default no bound */
  maxExpiresIn?: number;
  /** Seconds between two writes of a key's `lastUsedAt`. @default 60 */
  lastUsedInterval?: number;
  /**
   * Where per-key limits count. @default the configuration's rate-limit store (`rateLimit.store`:
   * shared by every instance when it is Redis), else one in this process's memory
   */
  rateLimitStore?: RateLimitStore;
  /** Fill unset options of `config` from this environment, as framework packages do. */
  env?: Env;
}

const PERMISSION = /^[a-z0-9_-]{1,64}:[a-z0-9_-]{1,64}$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/;
const ID = /^[0-9a-f]{16}$/;

/** The counters of per-key limits when the configuration has no rate-limit store. */
const fallbackCounters = slot("api-key-counters", () => new MemoryRateLimitStore());

const refused = <T>(reason: ApiKeyRefusal): ApiKeyResult<T> => ({ ok: false, reason });
const done = <T>(value: T): ApiKeyResult<T> => ({ ok: true, value });

function viewOf(record: ApiKeyRecord): ApiKeyView {
  const { hash: _hash, ...view } = record;
  return view;
}

function keyName(value: unknown): string | undefined {
  const name = typeof value === "string" ? value.normalize("NFC").trim() : "";
  return name === "" || name.length > 100 || INVISIBLE.test(name) ? undefined : name;
}

function scopeList(value: unknown): string[] | undefined {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > 100) return undefined;
  if (!value.every((s) => typeof s === "string" && PERMISSION.test(s))) return undefined;
  return [...new Set(value as string[])];
}

function rateLimitOf(value: unknown): ApiKeyRateLimit | null | undefined {
  if (value === undefined || value === null) return null;
  const limit = value as ApiKeyRateLimit;
  if (typeof value !== "object" || !Number.isInteger(limit.max) || limit.max < 1) return undefined;
  if (!Number.isInteger(limit.windowSeconds) || limit.windowSeconds < 1 || limit.windowSeconds > 31_536_000)
    return undefined;
  return { max: limit.max, windowSeconds: limit.windowSeconds };
}

function actorOf(value: unknown): string {
  if (typeof value !== "string" || value === "" || value.length > 255 || INVISIBLE.test(value)) {
    throw new TypeError("api keys: the acting user's id must be the session user's id (a non-empty string)");
  }
  return value;
}

function refusal(
  status: 400 | 401 | 403 | 429 | 503,
  error:
    | "invalid_request"
    | "invalid_token"
    | "insufficient_scope"
    | "rate_limited"
    | "temporarily_unavailable"
    | undefined,
  description: string,
  extra: Record<string, string> = {},
): ApiKeyCheck {
  const challenge =
    error && error !== "rate_limited" && error !== "temporarily_unavailable" ? `, error="${error}"` : "";
  return {
    ok: false,
    status,
    ...(error ? { error } : {}),
    headers: {
      "www-authenticate": `Bearer realm="api"${challenge}`,
      "cache-control": "no-store",
      ...extra,
    },
    body: error ? { error, error_description: description } : null,
  };
}

/**
 * The API keys of an application: `config` is the application's own configuration (its secret
 * keys the hashes, its audit trail receives every change, its logger the failures), `store` where
 * the keys are kept.
 *
 * @example
 * ```ts
 * const keys = ApiKeys(authConfig, { store: MemoryApiKeyStore(), organizations: orgs, userScopes: ["reports:read"] })
 * const made = await keys.create(session.user.id, { name: "CI", scopes: ["reports:read"], expiresIn: 90 * 86400 })
 * if (made.ok) show(made.value.key) // once: only its hash is kept
 * const check = await keys.verify(request, { scopes: ["reports:read"] })
 * ```
 */
export function ApiKeys(config: AuthConfig, options: ApiKeysOptions) {
  const store = options?.store;
  if (!store || typeof store.getApiKey !== "function") {
    throw new TypeError("ApiKeys: `store` must be an ApiKeyStore (MemoryApiKeyStore(), or a shared store)");
  }
  const prefix = options.prefix ?? "lk";
  if (!isKeyPrefix(prefix)) {
    throw new TypeError(
      `ApiKeys: \`prefix\` must be 1 to 16 lower-case letters and digits, a letter first (such as "acme"); received ${JSON.stringify(prefix)}`,
    );
  }
  const intervalMs = (options.lastUsedInterval ?? 60) * 1000;
  if (!(intervalMs >= 0) || !Number.isFinite(intervalMs)) {
    throw new TypeError("ApiKeys: `lastUsedInterval` must be a number of seconds (0 or more)");
  }
  const maxExpiresIn = options.maxExpiresIn;
  if (maxExpiresIn !== undefined && !(maxExpiresIn > 0)) {
    throw new TypeError("ApiKeys: `maxExpiresIn` must be a positive number of seconds");
  }
  const manage = options.managePermission ?? "organization:update";
  if (!PERMISSION.test(manage)) {
    throw new TypeError(`ApiKeys: \`managePermission\` must be a "resource:action" permission; received ${manage}`);
  }
  const userScopes = options.userScopes ?? [];
  if (typeof userScopes !== "function" && !Array.isArray(userScopes)) {
    throw new TypeError("ApiKeys: `userScopes` must be a list of permissions or a function of the user's id");
  }
  const organizations = options.organizations;
  // Keys whose lastUsedAt this instance is writing or wrote within the interval.
  const touched = new Map<string, number>();

  const resolved = () => resolveConfig(config, options.env);
  const counters = () => {
    const conf = resolved();
    return options.rateLimitStore ?? conf.rateLimit?.store ?? held(conf.application, fallbackCounters);
  };
  const audit = (trail: ReturnType<typeof resolveConfig>, event: Omit<ApiKeyEvent, "at">) =>
    recordAudit(trail, { ...event, at: new Date() } as ApiKeyEvent);

  /** True when `userId` may put every one of `scopes` on a key of theirs (or of `organizationId`). */
  async function mayGrant(userId: string, organizationId: string | null, scopes: string[]): Promise<boolean> {
    if (organizationId === null) {
      const own = new Set(typeof userScopes === "function" ? await userScopes(userId) : userScopes);
      return scopes.every((s) => own.has(s));
    }
    if (!organizations) return false;
    if (!(await organizations.can(userId, organizationId, manage))) return false;
    for (const scope of scopes)
      if (!(await organizations.can(userId, organizationId, scope as `${string}:${string}`))) return false;
    return true;
  }

  /** The key `keyId` when `userId` may manage it, else undefined. */
  async function manageable(userId: string, keyId: unknown): Promise<ApiKeyRecord | undefined> {
    if (typeof keyId !== "string" || !ID.test(keyId)) return undefined;
    const record = await store.getApiKey(keyId);
    if (!record) return undefined;
    if (record.organizationId === null) return record.userId === userId ? record : undefined;
    return organizations && (await organizations.can(userId, record.organizationId, manage)) ? record : undefined;
  }

  /** Whether `userId` is banned (the configuration's `admin`; never without it); throws when its store cannot be read. */
  async function isBanned(userId: string): Promise<boolean> {
    try {
      await refuseBanned(config, userId);
      return false;
    } catch (e) {
      if (e instanceof AccessDenied) return true;
      throw e;
    }
  }

  /**
   * Asked once the key `id` of `userId` is stored: a ban that landed meanwhile may have revoked the
   * user's keys before this one existed, so the key is revoked here (and when the ban cannot be
   * read, before the error is thrown). True when it was.
   */
  async function revokedByBan(userId: string, id: string): Promise<boolean> {
    let banned: boolean;
    try {
      banned = await isBanned(userId);
    } catch (e) {
      await store.revokeApiKey(id, new Date());
      throw e;
    }
    if (banned) await store.revokeApiKey(id, new Date());
    return banned;
  }

  /** Writes `lastUsedAt` unless this instance did within the interval; the store's condition covers the others. */
  function touch(record: ApiKeyRecord, now: number) {
    if (record.lastUsedAt !== null && now - record.lastUsedAt.getTime() < intervalMs) return;
    const last = touched.get(record.id);
    if (last !== undefined && now - last < intervalMs) return;
    touched.set(record.id, now);
    if (touched.size > 10_000) {
      for (const [id, at] of touched) if (now - at >= intervalMs) touched.delete(id);
    }
    store.touchApiKey(record.id, new Date(now), new Date(now - intervalMs)).catch((e: unknown) => {
      touched.delete(record.id);
      resolved().logger.error(
        new AdapterError(`The API key store failed to record the last use of key ${record.id}`, { err: errorOf(e) }),
      );
    });
  }

  return {
    /**
     * Makes a key for the acting user, or with `organizationId` for that organization (the
     * acting user needs `managePermission` there). Every scope must be the acting user's own. A
     * banned user (the configuration's `admin`) makes none, even when the ban lands meanwhile.
     */
    async create(
      actorId: string,
      input: {
        name: string;
        scopes?: string[];
        organizationId?: string;
        /** Seconds until it expires. @default never (or `maxExpiresIn` when set) */
        expiresIn?: number;
        rateLimit?: ApiKeyRateLimit;
      },
    ): Promise<ApiKeyResult<CreatedApiKey>> {
      const userId = actorOf(actorId);
      const trail = resolved(); // a configuration mistake is thrown before anything is stored
      const name = keyName(input?.name);
      if (name === undefined) return refused("invalid-name");
      const scopes = scopeList(input.scopes);
      if (scopes === undefined) return refused("invalid-scopes");
      const expiresIn = input.expiresIn ?? maxExpiresIn;
      if (
        expiresIn !== undefined &&
        (typeof expiresIn !== "number" ||
          !(expiresIn > 0) ||
          !Number.isFinite(expiresIn) ||
          (maxExpiresIn !== undefined && expiresIn > maxExpiresIn))
      )
        return refused("invalid-expiry");
      const rateLimit = rateLimitOf(input.rateLimit);
      if (rateLimit === undefined) return refused("invalid-rate-limit");
      const organizationId = input.organizationId ?? null;
      if (organizationId !== null && (typeof organizationId !== "string" || organizationId === ""))
        return refused("forbidden");
      if (!(await mayGrant(userId, organizationId, scopes))) return refused("forbidden");
      // A banned user makes no key: asked before it is stored, and again after (revokedByBan).
      if (await isBanned(userId)) return refused("forbidden");
      const { id, key } = newKey(prefix);
      const createdAt = new Date();
      const record: ApiKeyRecord = {
        id,
        hash: keyHash(key, trail.secrets),
        name,
        userId,
        organizationId,
        scopes,
        createdAt,
        expiresAt: expiresIn === undefined ? null : new Date(createdAt.getTime() + expiresIn * 1000),
        lastUsedAt: null,
        revokedAt: null,
        rateLimit,
      };
      await store.createApiKey(record);
      if (await revokedByBan(userId, id)) return refused("forbidden");
      await audit(trail, {
        type: "apikey.created",
        userId,
        keyId: id,
        ...(organizationId ? { organizationId } : {}),
      });
      return done({ key, record: viewOf(record) });
    },

    /**
     * The acting user's own keys, or with `organizationId` that organization's (for members whose
     * role grants `managePermission`; anyone else gets "forbidden"), oldest first, revoked ones included.
     */
    async list(actorId: string, filter?: { organizationId?: string }): Promise<ApiKeyResult<ApiKeyView[]>> {
      const userId = actorOf(actorId);
      const organizationId = filter?.organizationId;
      let owner: ApiKeyOwner = { userId };
      if (organizationId !== undefined) {
        if (typeof organizationId !== "string" || !organizations) return refused("forbidden");
        if (!(await organizations.can(userId, organizationId, manage))) return refused("forbidden");
        owner = { organizationId };
      }
      return done((await store.listApiKeys(owner)).map(viewOf));
    },

    /** Revokes a key: at once, on every instance (each reads the store on every request). */
    async revoke(actorId: string, keyId: string): Promise<ApiKeyResult<void>> {
      const userId = actorOf(actorId);
      const trail = resolved();
      const record = await manageable(userId, keyId);
      if (!record || record.revokedAt !== null) return refused("not-found");
      if (!(await store.revokeApiKey(record.id, new Date()))) return refused("not-found");
      await audit(trail, {
        type: "apikey.revoked",
        userId,
        keyId: record.id,
        ...(record.organizationId ? { organizationId: record.organizationId } : {}),
      });
      return done(undefined);
    },

    /**
     * Replaces a key by a new one with the same name, scopes, limit and remaining life, and revokes
     * the old one, both or neither. The acting user must still hold every scope of it.
     */
    async rotate(actorId: string, keyId: string): Promise<ApiKeyResult<CreatedApiKey>> {
      const userId = actorOf(actorId);
      const trail = resolved();
      const old = await manageable(userId, keyId);
      if (!old || old.revokedAt !== null) return refused("not-found");
      if (!(await mayGrant(userId, old.organizationId, old.scopes))) return refused("forbidden");
      if (await isBanned(userId)) return refused("forbidden");
      const { id, key } = newKey(prefix);
      const now = new Date();
      const record: ApiKeyRecord = {
        ...old,
        id,
        hash: keyHash(key, trail.secrets),
        userId: old.organizationId === null ? old.userId : userId,
        createdAt: now,
        lastUsedAt: null,
        revokedAt: null,
      };
      if (!(await store.rotateApiKey(old.id, now, record))) return refused("not-found");
      if (await revokedByBan(userId, id)) return refused("forbidden");
      await audit(trail, {
        type: "apikey.rotated",
        userId,
        keyId: old.id,
        replacedBy: id,
        ...(old.organizationId ? { organizationId: old.organizationId } : {}),
      });
      return done({ key, record: viewOf(record) });
    },

    /**
     * Revokes every live key of `userId` (their own and the organizations' keys they made), at
     * once on every instance; answers how many. Call it where a user is deleted or banned:
     * verification never reads the user, so a key outlives its user until this runs.
     * `SqlAdapter.deleteUser` does it itself, in its transaction, when the keys share its database.
     */
    async revokeUserKeys(userId: string): Promise<number> {
      return store.revokeUserApiKeys(actorOf(userId), new Date());
    },

    /**
     * Checks the key a request presents (`Authorization: Bearer <key>` or `X-API-Key`) and that
     * it carries every scope in `scopes`. Fails closed: when the store cannot be read, a 503.
     * Nothing of the key reaches a log or the answer, and every invalid key is answered alike.
     */
    async verify(input: ApiKeyInput, required?: { scopes?: readonly string[] }): Promise<ApiKeyCheck> {
      const presented = presentedKey(input);
      if ("none" in presented) return refusal(401, undefined, "");
      if ("malformed" in presented)
        return refusal(400, "invalid_request", "The request must present one API key, once");
      const conf = resolved();
      const id = keyIdOf(presented.key, prefix);
      const invalid = (why: string) => {
        conf.logger.debug(`API key refused: ${why}`, id ? { keyId: id } : undefined);
        return refusal(401, "invalid_token", "The API key is not valid");
      };
      if (id === undefined) return invalid("not a key of this application");
      let record: ApiKeyRecord | null;
      try {
        record = await store.getApiKey(id);
      } catch (e) {
        conf.logger.error(new AdapterError("The API key store could not be read: key refused", { err: errorOf(e) }));
        return refusal(503, "temporarily_unavailable", "Try again later", { "retry-after": "5" });
      }
      if (!record || !keyMatches(presented.key, record.hash, conf.secrets)) return invalid("unknown key");
      const now = Date.now();
      if (record.revokedAt !== null) return invalid("revoked");
      if (record.expiresAt !== null && record.expiresAt.getTime() <= now) return invalid("expired");
      if (record.rateLimit) {
        const windowMs = record.rateLimit.windowSeconds * 1000;
        let hit: { count: number; resetAt: number };
        try {
          hit = await counters().increment(`apikey:${record.id}`, windowMs);
        } catch (e) {
          conf.logger.error(
            new AdapterError("The rate-limit store could not count an API key's request: key refused", {
              err: errorOf(e),
            }),
          );
          return refusal(503, "temporarily_unavailable", "Try again later", { "retry-after": "5" });
        }
        if (hit.count > record.rateLimit.max) {
          const wait = Math.max(1, Math.ceil((hit.resetAt - now) / 1000));
          return refusal(429, "rate_limited", "This API key's request limit is reached", {
            "retry-after": String(wait),
          });
        }
      }
      const scopes = required?.scopes ?? [];
      if (!scopes.every((s) => record.scopes.includes(s))) {
        const missing = refusal(403, "insufficient_scope", "The API key lacks a scope this request needs");
        if (!missing.ok) missing.headers["www-authenticate"] += `, scope="${scopes.join(" ")}"`;
        return missing;
      }
      touch(record, now);
      return {
        ok: true,
        key: {
          id: record.id,
          name: record.name,
          owner:
            record.organizationId === null
              ? { type: "user", id: record.userId }
              : { type: "organization", id: record.organizationId },
          userId: record.userId,
          organizationId: record.organizationId,
          scopes: [...record.scopes],
          expiresAt: record.expiresAt,
        },
      };
    },
  };
}

/** What {@link ApiKeys} gives. */
export type ApiKeysApi = ReturnType<typeof ApiKeys>;
