/**
 * The face of lib/crypto/: every name the rest of the library uses from this wing. Entry modules
 * import lib/crypto/ only through this file; other wings may import a name offered here from the
 * file that defines it (which keeps the import graph free of cycles), and nothing else of
 * lib/crypto/: a name not offered here is the wing's own (test/structure/faces.ts checks both).
 */
export { type CsrfKeys, createCsrfToken, csrfTokensMatch, deriveCsrfKeys, readCsrfCookie } from "./csrf.js";
export { type Opened, openToken, openTokenWithReason, type Secrets, sealToken } from "./jwe.js";
export { decode, encode, type GetTokenParams, getToken } from "./jwt.js";
export { randomHexFromPool } from "./random-pool.js";
