/**
 * One refresh per refresh token, however many requests and instances need it at once.
 *
 * - Within a process, concurrent callers for one refresh token share one promise (a map of the
 *   application, `lib/base/application.ts`, whatever configuration object each caller used).
 * - Across instances, the shared `RefreshStore` holds a short lock per refresh token: its holder
 *   calls the provider; the others wait for the outcome record it writes before releasing.
 * - The outcome stays recorded for a short while under the OLD refresh token, so a request that
 *   still carries it (a tab, a cookie from before the rotation, an instance that read the account
 *   a moment too early) gets the new tokens instead of replaying a rotated token, which providers
 *   with reuse detection answer by revoking the whole grant (RFC 9700 §4.14.2).
 *
 * Store keys are SHA-256 hashes of the refresh token and values are sealed with AES-256-GCM under
 * keys derived from the configuration's secrets: the store never holds a token in the clear. The
 * key depends on nothing but the token, and a value is sealed once under each configured secret,
 * so instances on either side of a secret rotation (`[NEW, OLD]` and `[OLD]`, then `[NEW, OLD]`
 * and `[NEW]`) meet on one lock and read each other's outcome: a rotation never makes two of them
 * redeem one refresh token (which a provider with reuse detection answers by revoking the grant).
 */
import { fromBase64url, fromUtf8, gcmCipher, hash, hkdf, randomBytes, randomUUID, toBase64url, utf8 } from "#platform";
import type { RefreshStore } from "../../shapes/refresh.js";
import { type Application, held, slot } from "../base/application.js";
import { errorOf } from "../base/error-of.js";
import { AccessTokenError } from "../base/errors.js";
import type { RefreshOutcome } from "../config/types.js";

/** How long a refresh lock lives: a holder that crashed frees it after this. */
export const LOCK_TTL_MS = 20_000;
/**
 * The share of the lock's lifetime the provider calls (discovery and the token request together)
 * may take; the rest is for writing the outcome back. A refresh never outlives its lock: another
 * instance that took an expired lock would redeem the same refresh token, which a provider with
 * reuse detection answers by revoking the grant (RFC 9700 §4.14.2).
 */
const refreshBudgetMs = (lockTtlMs: number) => Math.floor(lockTtlMs * 0.75);
/** A failure that may pass is shared with the requests waiting for it, then forgotten. */
const TRANSIENT_TTL_MS = 2_000;

/** What the coordination needs of the resolved configuration. */
export interface FlightConfig {
  readonly secrets: readonly string[];
  readonly logger: { error(error: Error): void };
  readonly application: Application;
}

/** The refreshes under way in this process, by store key. */
const inFlight = slot("refreshes", () => new Map<string, Promise<RefreshOutcome>>());

function derive(secret: string, purpose: string): Uint8Array {
  return hkdf(secret, "latchkey refresh store", purpose, 32);
}

/**
 * The store key of a refresh token of a provider: the same on every instance, whatever secrets it
 * runs with. A hash without a key is enough: a refresh token is a random secret of the provider's,
 * so its hash can be neither reversed nor guessed.
 */
function keyOf(providerId: string, refreshToken: string): string {
  return toBase64url(hash("sha256", `latchkey refresh store key\u0000${providerId}\u0000${refreshToken}`));
}

/** The outcome sealed once under each secret, space-separated: any instance of a rotation opens one. */
async function seal(secrets: readonly string[], key: string, outcome: RefreshOutcome): Promise<string> {
  const plain = utf8(JSON.stringify(outcome));
  const copies = [...new Set(secrets)].map(async (secret) => {
    const iv = randomBytes(12);
    // The AAD is the store key: a record moved under another key does not open.
    const { ciphertext, tag } = await gcmCipher(derive(secret, "value")).seal(iv, plain, utf8(key));
    return `${toBase64url(iv)}.${toBase64url(ciphertext)}.${toBase64url(tag)}`;
  });
  return (await Promise.all(copies)).join(" ");
}

/** Opens a record with any configured secret (rotation); null for anything that does not open. */
async function open(secrets: readonly string[], key: string, sealed: string): Promise<RefreshOutcome | null> {
  for (const copy of sealed.split(" ")) {
    const outcome = await openCopy(secrets, key, copy);
    if (outcome) return outcome;
  }
  return null;
}

async function openCopy(secrets: readonly string[], key: string, sealed: string): Promise<RefreshOutcome | null> {
  const [iv, body, tag] = sealed.split(".");
  if (iv === undefined || body === undefined || tag === undefined) return null;
  for (const secret of secrets) {
    try {
      const cipher = gcmCipher(derive(secret, "value"));
      const plain = await cipher.open(fromBase64url(iv), fromBase64url(body), fromBase64url(tag), utf8(key));
      return JSON.parse(fromUtf8(plain)) as RefreshOutcome;
    } catch {
      // another secret may open it
    }
  }
  return null;
}

/**
 * Runs `refresh` for `refreshToken` at most once across the callers, processes and instances
 * that share `store`, and returns its outcome to each. `refresh` runs while the lock is held, so
 * what it writes (the rotated tokens on the account) lands before anyone else acts on the token;
 * its `deadline` aborts before the lock (`lockTtlMs`) expires, and its provider calls must stop then.
 *
 * @example
 * ```ts
 * const outcome = await singleFlight(config, store, "google", refreshToken, (deadline) => refreshGrant(provider, refreshToken, deadline), 30_000)
 * ```
 */
export function singleFlight(
  config: FlightConfig,
  store: RefreshStore,
  providerId: string,
  refreshToken: string,
  refresh: (deadline: AbortSignal) => Promise<RefreshOutcome>,
  recordTtlMs: number,
  lockTtlMs = LOCK_TTL_MS,
): Promise<RefreshOutcome> {
  const key = keyOf(providerId, refreshToken);
  const inflight = held(config.application, inFlight);
  const running = inflight.get(key);
  if (running) return running;
  const flight = coordinate(config, store, key, refresh, recordTtlMs, lockTtlMs).finally(() => inflight.delete(key));
  inflight.set(key, flight);
  return flight;
}

async function coordinate(
  config: FlightConfig,
  store: RefreshStore,
  key: string,
  refresh: (deadline: AbortSignal) => Promise<RefreshOutcome>,
  recordTtlMs: number,
  lockTtlMs: number,
): Promise<RefreshOutcome> {
  const recorded = async () => {
    const sealed = await store.get(key);
    return sealed ? open(config.secrets, key, sealed) : null;
  };
  const owner = randomUUID();
  // A holder that crashed leaves its lock to expire: waiting past that, the lock is taken again.
  const deadline = Date.now() + lockTtlMs * 2;
  let pause = 5;
  for (;;) {
    const done = await recorded();
    if (done) return done;
    if (await store.acquire(key, owner, lockTtlMs)) {
      try {
        // Finished by another instance between our read and our lock.
        const late = await recorded();
        if (late) return late;
        const outcome = await refresh(AbortSignal.timeout(refreshBudgetMs(lockTtlMs)));
        const ttl = outcome.ok || outcome.revoked ? recordTtlMs : TRANSIENT_TTL_MS;
        try {
          await store.put(key, await seal(config.secrets, key, outcome), ttl);
        } catch (e) {
          // The provider has already answered (and rotated the refresh token): this caller and the
          // ones it carries get the outcome; throwing would lose the only copy of the new tokens.
          config.logger.error(
            new AccessTokenError(
              "The outcome of a refresh could not be recorded in the refresh store; other instances may redeem the old refresh token",
              { err: errorOf(e) },
            ),
          );
        }
        return outcome;
      } finally {
        await store.release(key, owner).catch(() => {
          // the lock expires by itself
        });
      }
    }
    if (Date.now() > deadline) {
      return { ok: false, revoked: false, message: "another instance holds the refresh lock and wrote no outcome" };
    }
    // Waiting on another instance: the store has no push in its interface, so its record is read
    // again after a short, growing pause (at most 100 ms), bounded by the lock's lifetime.
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, 100);
  }
}
