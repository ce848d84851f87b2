/**
 * Session tokens: JWTs encrypted as JWE (`dir` + `A256CBC-HS512`), the format Auth.js writes, so a
 * session made by either library is read by the other. The key is 64 bytes from HKDF-SHA256 over
 * the secret, with the cookie name as salt; the `kid` header is the key's JWK thumbprint
 * (SHA-512), which lets a rotated secret array find the right key at once.
 *
 * Tokens are sealed and opened with synchronous `node:crypto` and keys derived once per
 * (secret, salt): a session read costs one HMAC and one AES-CBC decryption.
 *
 * @example
 * ```ts
 * import { encode, decode } from "@latchkey/core/jwt"
 * const token = await encode({ token: { sub: "42" }, secret, salt: "authjs.session-token" })
 * const payload = await decode({ token, secret, salt: "authjs.session-token" })
 * ```
 * @module jwt
 */

export { decode, encode, type GetTokenParams, getToken } from "./lib/crypto/index.js";
export type { DefaultJWT, JWT, JWTDecodeParams, JWTEncodeParams, JWTOptions } from "./shapes/jwt.js";
