/**
 * The one expiry rule of a session, whatever holds it (a stored session's `expires`, a JWT's
 * `exp`): a session is expired when its expiry is now or past. Every reader asks here.
 */

/** Seconds of clock difference tolerated on a JWT's `exp` (Auth.js's 15 s): other instances' clocks may run ahead. */
export const JWT_CLOCK_TOLERANCE = 15;

/**
 * True when a session whose expiry is `expires` (a `Date` or epoch milliseconds) has expired at
 * `now` (epoch milliseconds): `expires <= now`.
 *
 * @example
 * ```ts
 * isExpired(found.session.expires) // false until the stored expiry, true from that instant on
 * ```
 */
export function isExpired(expires: Date | number, now: number = Date.now()): boolean {
  return (typeof expires === "number" ? expires : expires.valueOf()) <= now;
}

/**
 * {@link isExpired} for a JWT's `exp` (epoch seconds) at `nowSeconds`: its expiry is `exp` plus
 * the clock tolerance.
 *
 * @example
 * ```ts
 * jwtExpired(claims.exp, Math.floor(Date.now() / 1000))
 * ```
 */
export function jwtExpired(exp: number, nowSeconds: number): boolean {
  return isExpired((exp + JWT_CLOCK_TOLERANCE) * 1000, nowSeconds * 1000);
}
