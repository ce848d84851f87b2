/**
 * The shapes of session tokens: their claims and the options of `encode`, `decode` and a custom
 * `jwt` configuration. `@latchkey/core/jwt` re-exports them.
 */
import type { Awaitable } from "./data.js";

/** The claims Latchkey sets in a session token: the base of `JWT`. `name`, `email`, `picture` and `sub` are set at sign-in. */
export interface DefaultJWT extends Record<string, unknown> {
  name?: string | null;
  email?: string | null;
  picture?: string | null;
  sub?: string;
  iat?: number;
  exp?: number;
  jti?: string;
  /**
   * The session's id, set at sign-in and kept by every re-issue of the session (`jti` is new on
   * each seal): what `revokeJwtSession` revokes.
   */
  sid?: string;
  /** When the session began (epoch seconds, fractional), kept by every re-issue; `revokeUserSessions` compares it. */
  auth_time?: number;
}

/**
 * The claims of a session token. Empty here and extended by `DefaultJWT`, as in Auth.js, so that
 * module augmentation may redeclare a default claim (`email: string`) or add its own.
 *
 * @example
 * ```ts
 * declare module "@latchkey/next/jwt" {
 *   interface JWT { role?: "admin" | "member" }
 * }
 * ```
 */
export interface JWT extends Record<string, unknown>, DefaultJWT {}

/** What `encode` takes. */
export interface JWTEncodeParams<Payload = JWT> {
  token?: Payload;
  /** The cookie name; it salts the key. */
  salt: string;
  /** The first element encrypts. */
  secret: string | string[];
  /** Seconds until `exp`. @default 2592000 (30 days) */
  maxAge?: number;
}

/** What `decode` takes. */
export interface JWTDecodeParams {
  token?: string;
  salt: string;
  /** Any element may decrypt. */
  secret: string | string[];
}

/** Custom encoding of session tokens (config `jwt`). */
export interface JWTOptions {
  /** @default the configuration's secret */
  secret: string | string[];
  /** @default session.maxAge */
  maxAge: number;
  encode: (params: JWTEncodeParams) => Awaitable<string>;
  decode: (params: JWTDecodeParams) => Awaitable<JWT | null>;
}
