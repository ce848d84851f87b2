import {
  fromBase64,
  randomBytes,
  SCRYPT_DEFAULTS,
  SCRYPT_MEMORY_LIMIT,
  scrypt,
  timingSafeEqual,
  toBase64,
  utf8,
} from "#platform";

/**
 * Cost parameters of scrypt (RFC 7914): `N = 2^ln` (CPU and memory cost), `r` (block size) and
 * `p` (parallelisation). Memory used per hash is `128 * N * r` bytes: 128 MiB with the defaults.
 */
export interface ScryptParameters {
  /** Base-2 logarithm of `N`. @default 17 */
  ln: number;
  /** @default 8 */
  r: number;
  /** @default 1 */
  p: number;
}

/** Options of {@link hashPassword}, {@link needsRehash} and {@link dummyVerify}. */
export interface HashOptions {
  /**
   * The parameters new hashes get (and that {@link needsRehash} compares with). Raise them as
   * hardware gets faster; hashes made with the old ones still verify.
   * @default { ln: 17, r: 8, p: 1 } on Node.js (OWASP's recommendation for scrypt, 128 MiB per
   * hash); { ln: 14, r: 8, p: 8 } where `node:crypto` is absent (16 MiB, the same N·r·p work)
   */
  parameters?: Partial<ScryptParameters>;
}

/**
 * The parameters of new hashes unless an application passes its own. On Node.js (Bun, Deno):
 * OWASP Password Storage Cheat Sheet's scrypt minimum (N = 2^17, r = 8, p = 1), 128 MiB per hash.
 * Where `node:crypto` is absent (Next.js's Edge runtime, Cloudflare Workers: 128 MiB for the
 * whole isolate), N = 2^14, r = 8, p = 8: 16 MiB, and as much work (N·r·p) as Node's default.
 */
export const DEFAULT_SCRYPT_PARAMETERS: Readonly<ScryptParameters> = Object.freeze({ ...SCRYPT_DEFAULTS });

/**
 * The longest password, in UTF-8 bytes after NFKC normalisation, that is hashed or verified.
 * Longer inputs are refused before any work: scrypt's cost grows with its input, and nobody types
 * a kilobyte.
 */
export const MAX_PASSWORD_BYTES = 1024;

const SALT_BYTES = 16;
const HASH_BYTES = 32;
// Bounds for a stored hash's parameters: a hash edited in the database cannot make one
// verification take gigabytes of memory or minutes of CPU.
const LIMITS = { ln: [1, 24], r: [1, 32], p: [1, 16] } as const;
const MAX_MEMORY = 2 ** 30;

/** A parsed `$scrypt$...` string. */
interface Decoded {
  parameters: ScryptParameters;
  salt: Uint8Array;
  hash: Uint8Array;
}

function checkParameters(parameters: ScryptParameters, where: string): ScryptParameters {
  for (const name of ["ln", "r", "p"] as const) {
    const value = parameters[name];
    const [low, high] = LIMITS[name];
    if (!Number.isInteger(value) || value < low || value > high) {
      throw new RangeError(`${where}: scrypt parameter \`${name}\` must be an integer from ${low} to ${high}`);
    }
  }
  if (128 * 2 ** parameters.ln * parameters.r > MAX_MEMORY) {
    throw new RangeError(`${where}: scrypt parameters need more than 1 GiB of memory (128 * 2^ln * r)`);
  }
  return parameters;
}

function resolveParameters(options: HashOptions | undefined): ScryptParameters {
  return checkParameters({ ...DEFAULT_SCRYPT_PARAMETERS, ...options?.parameters }, "hashPassword");
}

/**
 * The password as scrypt receives it: NFKC-normalised (NIST SP 800-63B §5.1.1.2), so the same
 * password typed on two keyboards that compose characters differently gives the same hash.
 * `null` when it is not a string, is longer than {@link MAX_PASSWORD_BYTES} (the raw length is
 * checked first so that a megabyte is not normalised either) or holds U+0000: scrypt keys
 * HMAC-SHA-256 with the password, and HMAC pads short keys with zero bytes, so "pw" and "pw\0"
 * would be the same password.
 */
function passwordBytes(password: unknown): Uint8Array | null {
  if (typeof password !== "string" || password.length > MAX_PASSWORD_BYTES || password.includes("\u0000")) {
    return null;
  }
  const bytes = utf8(password.normalize("NFKC"));
  return bytes.length > MAX_PASSWORD_BYTES ? null : bytes;
}

function derive(
  password: Uint8Array,
  salt: Uint8Array,
  length: number,
  { ln, r, p }: ScryptParameters,
): Promise<Uint8Array> {
  const memory = 128 * 2 ** ln * r;
  if (memory > SCRYPT_MEMORY_LIMIT) {
    // A Worker has 128 MiB for everything: a hash made with Node.js's default would end the isolate.
    return Promise.reject(
      new RangeError(
        `scrypt with ln=${ln}, r=${r} needs ${memory / 2 ** 20} MiB, more than the ${SCRYPT_MEMORY_LIMIT / 2 ** 20} MiB one hash may take on this runtime (no node:crypto: Edge, Workers). Verify such hashes where node:crypto runs, with \`parameters: { ln: 14, r: 8, p: 8 }\` given to needsRehash and hashPassword there, so that the next sign-in moves them to parameters every runtime can verify.`,
      ),
    );
  }
  // Off the request's turn: libuv's thread pool on Node.js; a Web runtime yields every few ms.
  return scrypt(password, salt, length, { N: 2 ** ln, r, p, maxmem: 128 * 2 ** ln * r + 2 ** 20 });
}

const B64 = /^[A-Za-z0-9+/]+$/;

function decode(encoded: unknown): Decoded | null {
  if (typeof encoded !== "string" || encoded.length > 512) return null;
  const parts = encoded.split("$");
  const [empty, scheme, list = "", salt = "", hash = ""] = parts;
  if (parts.length !== 5 || empty !== "" || scheme !== "scrypt") return null;
  const fields = new Map<string, number>();
  for (const field of list.split(",")) {
    const [, name, value] = /^(ln|r|p)=([0-9]{1,3})$/.exec(field) ?? [];
    if (name === undefined || fields.has(name)) return null;
    fields.set(name, Number(value));
  }
  const [ln, r, p] = [fields.get("ln"), fields.get("r"), fields.get("p")];
  if (fields.size !== 3 || ln === undefined || r === undefined || p === undefined) return null;
  if (!B64.test(salt) || !B64.test(hash)) return null;
  const parameters: ScryptParameters = { ln, r, p };
  try {
    checkParameters(parameters, "verifyPassword");
  } catch {
    return null;
  }
  const decoded = { parameters, salt: fromBase64(salt), hash: fromBase64(hash) };
  if (decoded.salt.length < 8 || decoded.hash.length < 16 || decoded.hash.length > 64) return null;
  return decoded;
}

function encode({ parameters: { ln, r, p }, salt, hash }: Decoded): string {
  const b64 = (bytes: Uint8Array) => toBase64(bytes).replace(/=+$/, "");
  return `$scrypt$ln=${ln},r=${r},p=${p}$${b64(salt)}$${b64(hash)}`;
}

/**
 * Hashes a password with scrypt (`node:crypto` on the thread pool; `@noble/hashes` where
 * `node:crypto` is absent) and a random 16-byte salt.
 * The result describes itself, in the PHC string format:
 * `$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<hash>` (salt and 32-byte hash in base64 without
 * padding), so parameters can be raised later and old hashes still verify. The password is
 * NFKC-normalised first. Store the whole string.
 *
 * Throws a `RangeError` for a password over {@link MAX_PASSWORD_BYTES} bytes, one holding U+0000,
 * or a non-string (check it with {@link checkPasswordPolicy} first: its `too-long` and
 * `control-character` reasons come earlier).
 *
 * @example
 * ```ts
 * import { hashPassword } from "@latchkey/core/password"
 * const stored = await hashPassword("correct horse battery staple")
 * // "$scrypt$ln=17,r=8,p=1$Gm1u...$0c8Q..."
 * ```
 */
export async function hashPassword(password: string, options?: HashOptions): Promise<string> {
  const parameters = resolveParameters(options);
  const bytes = passwordBytes(password);
  if (!bytes) {
    throw new RangeError(
      `hashPassword: the password must be a string of at most ${MAX_PASSWORD_BYTES} UTF-8 bytes, without U+0000`,
    );
  }
  const salt = randomBytes(SALT_BYTES);
  return encode({ parameters, salt, hash: await derive(bytes, salt, HASH_BYTES, parameters) });
}

/**
 * Checks a password against a string made by {@link hashPassword}, comparing in constant time.
 * Never throws for what a user sent: a non-string, over-long or U+0000-holding password is
 * `false` (without hashing). A stored value that is not a valid `$scrypt$` string (or whose parameters are out of
 * bounds) throws a `TypeError`: that is the application's data, not the user's input.
 *
 * @example
 * ```ts
 * import { dummyVerify, verifyPassword } from "@latchkey/core/password"
 * const user = await db.users.byEmail(email)
 * const ok = user ? await verifyPassword(password, user.passwordHash) : await dummyVerify(password)
 * ```
 */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const decoded = decode(encoded);
  if (!decoded)
    throw new TypeError("verifyPassword: the stored value is not a `$scrypt$ln=..,r=..,p=..$salt$hash` string");
  const bytes = passwordBytes(password);
  if (!bytes) return false;
  const actual = await derive(bytes, decoded.salt, decoded.hash.length, decoded.parameters);
  return timingSafeEqual(actual, decoded.hash);
}

/**
 * Spends what {@link verifyPassword} spends on a stored hash with the current parameters, and
 * returns `false`. Call it when no user has the submitted identifier, so that an unknown account
 * answers after the same time as a wrong password and timing does not tell which one it was.
 *
 * @example
 * ```ts
 * const ok = user ? await verifyPassword(password, user.passwordHash) : await dummyVerify(password)
 * ```
 */
export async function dummyVerify(password: string, options?: HashOptions): Promise<false> {
  const parameters = resolveParameters(options);
  const bytes = passwordBytes(password);
  if (!bytes) return false;
  // A fresh salt and a random "stored" hash: the same work and the same comparison as a real
  // verification, against a value no password produces.
  const actual = await derive(bytes, randomBytes(SALT_BYTES), HASH_BYTES, parameters);
  timingSafeEqual(actual, randomBytes(HASH_BYTES));
  return false;
}

/**
 * Whether a stored hash should be replaced: made with weaker parameters than `options` (the
 * defaults unless given), a shorter salt or hash, another algorithm, or not readable at all.
 * Call it after a successful {@link verifyPassword}, while the plain password is at hand.
 *
 * @example
 * ```ts
 * if (await verifyPassword(password, user.passwordHash)) {
 *   if (needsRehash(user.passwordHash)) await db.users.setHash(user.id, await hashPassword(password))
 * }
 * ```
 */
export function needsRehash(encoded: string, options?: HashOptions): boolean {
  const target = resolveParameters(options);
  const decoded = decode(encoded);
  if (!decoded) return true;
  const { ln, r, p } = decoded.parameters;
  return (
    ln < target.ln ||
    r < target.r ||
    p < target.p ||
    decoded.salt.length < SALT_BYTES ||
    decoded.hash.length < HASH_BYTES
  );
}
