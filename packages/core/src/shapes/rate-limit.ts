// The rate-limit store's interface and the `rateLimit` option (the public face is rate-limit.ts,
// whose documentation says what is limited); the in-memory store is lib/limits/memory-store.ts.

/** The state of one counter. */
export interface RateLimitHit {
  count: number;
  /** Epoch milliseconds when the window ends. */
  resetAt: number;
}

/**
 * Where counters live. `increment` and `decrement` must be atomic across the instances that share
 * the store: the limiter reserves an attempt with `increment` before it runs, so a read followed
 * by a write would let concurrent attempts through.
 */
export interface RateLimitStore {
  /** Adds one to `key` (starting a window of `windowMs` if none is open) and returns the state. */
  increment(key: string, windowMs: number): Promise<RateLimitHit>;
  /**
   * Takes one back from `key` (a reservation that turned out not to count). Never goes below zero,
   * never opens a window and never extends one.
   */
  decrement(key: string): Promise<void>;
  /** The state of `key` without changing it; null when no window is open. */
  get(key: string): Promise<RateLimitHit | null>;
}

/** A limit: at most `max` within `windowSeconds`. */
export interface RateLimit {
  max: number;
  windowSeconds: number;
}

/**
 * The `rateLimit` option. Pass `false` to turn rate limiting off.
 *
 * "Client address" is `RequestInternal.clientIp` (Express: `req.ip`); IPv6 addresses are counted
 * per /64, the block one subscriber usually holds. Without a client address only the
 * per-identifier limits apply, and the tight `...PerIdentifierAndIp` limit is then applied to the
 * identifier alone: guessing stays as slow, at the price that anyone can make an identifier wait.
 *
 * @example
 * ```ts
 * rateLimit: { credentialsPerIdentifierAndIp: { max: 3, windowSeconds: 600 } }
 * ```
 */
export interface RateLimitOptions {
  /** @default a MemoryRateLimitStore kept for this configuration object */
  store?: RateLimitStore;
  /**
   * Failed credentials attempts per (identifier, client address): the limit a guesser meets.
   * @default 5 per 15 minutes
   */
  credentialsPerIdentifierAndIp?: RateLimit;
  /**
   * Failed credentials attempts per identifier from all clients together: bounds a distributed
   * guesser, loose enough that one client failing on purpose cannot lock the owner out.
   * @default 50 per 15 minutes
   */
  credentialsPerIdentifier?: RateLimit;
  /** Credentials attempts (any outcome, any identifier) per client address. @default 100 per 15 minutes */
  credentialsPerIp?: RateLimit;
  /** Sign-in e-mails per (address, client address). @default 5 per 15 minutes */
  emailPerIdentifierAndIp?: RateLimit;
  /** Sign-in e-mails per address from all clients together. @default 15 per 15 minutes */
  emailPerIdentifier?: RateLimit;
  /** Sign-in e-mails per client address. @default 30 per 15 minutes */
  emailPerIp?: RateLimit;
  /**
   * E-mail code submissions per (address, client address) that did not sign in.
   * @default 10 per 15 minutes
   */
  emailCodePerIdentifierAndIp?: RateLimit;
  /** E-mail code submissions per address from all clients together. @default 30 per 15 minutes */
  emailCodePerIdentifier?: RateLimit;
  /** E-mail code submissions (any outcome) per client address. @default 60 per 15 minutes */
  emailCodePerIp?: RateLimit;
  /** `GET /webauthn-options/<provider>` requests per client address. @default 300 per 15 minutes */
  webauthnOptionsPerIp?: RateLimit;
  /**
   * Second-factor codes tried with one pending sign-in (one first factor); the user must sign in
   * again after this many. @default 5 per 15 minutes
   */
  secondFactorPerPending?: RateLimit;
  /**
   * Failed second-factor codes per user, from all pending sign-ins together: bounds a guesser
   * who holds the first factor. @default 10 per 15 minutes
   */
  secondFactorPerUser?: RateLimit;
}
