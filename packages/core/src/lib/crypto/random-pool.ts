/**
 * Random bytes for the values a request mints (CSRF tokens, session tokens, JWE IVs), drawn from
 * one pool that the CSPRNG refills 4 KiB at a time. A `randomBytes(16)` costs a call into OpenSSL
 * whatever its size (measured at 6–20 µs under load, most of a JWT sign-in's randomness cost); a
 * refill serves a hundred or more draws for one call.
 *
 * Each draw is copied out and its bytes are zeroed in the pool at once, so a byte is handed out
 * at most once and the pool never holds a value already given to a caller. The pool itself never
 * leaves this module. (A forked process would share a pool's unread bytes; Node does not fork a
 * running process, and worker threads each load their own copy of this module.)
 */
import { randomFill, toHex } from "#platform";

const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
/** Bytes of the pool already handed out (zeroed); the pool is refilled once too few remain. */
let taken = POOL_BYTES;

/** The offset of `size` fresh bytes in the pool, marked taken; the caller copies them out and zeroes them. */
function draw(size: number): number {
  if (taken + size > POOL_BYTES) {
    randomFill(pool);
    taken = 0;
  }
  const at = taken;
  taken += size;
  return at;
}

/**
 * `size` random bytes (at most 1 KiB; more goes straight to the CSPRNG), as a new buffer.
 *
 * @example
 * ```ts
 * const iv = randomBytesFromPool(16)
 * ```
 */
export function randomBytesFromPool(size: number): Uint8Array {
  if (size > POOL_BYTES / 4) return randomFill(new Uint8Array(size));
  const at = draw(size);
  const out = pool.slice(at, at + size);
  pool.fill(0, at, at + size);
  return out;
}

/**
 * `size` random bytes as lowercase hex (`2 × size` characters), at most 1 KiB of them.
 *
 * @example
 * ```ts
 * randomHexFromPool(32) // "9f86d0…" (64 characters): a session token
 * ```
 */
export function randomHexFromPool(size: number): string {
  if (size > POOL_BYTES / 4) return toHex(randomFill(new Uint8Array(size)));
  const at = draw(size);
  const hex = toHex(pool.subarray(at, at + size));
  pool.fill(0, at, at + size);
  return hex;
}
