/**
 * The least work any library's fresh session read can do, as a Worker module for `npm run
 * bench:runtimes -- --jwe-floor` (issue 36.8): the session cookie taken from the `Cookie` header,
 * its JWE (`dir` + `A256CBC-HS512`, Auth.js's format) split and decoded, the tag verified and the
 * content decrypted with Web Crypto under keys derived and imported once per isolate, the claims
 * parsed and their expiry checked, and the session answered as JSON with the no-store headers both
 * libraries send. No configuration, no routing, no callbacks, no cache: what is left of a read
 * once everything but the cryptography and the answer is taken away.
 */
const SALT = "authjs.session-token";
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const noStore = { "Cache-Control": "private, no-cache, no-store", Expires: "0", Pragma: "no-cache" };

interface Keys {
  mac: CryptoKey;
  aes: CryptoKey;
}
let keys: Promise<Keys> | undefined;

/** HKDF-SHA-256 of the secret with the cookie name as salt, as Auth.js derives it; then the two keys. */
function keysOf(secret: string): Promise<Keys> {
  keys ??= (async () => {
    const base = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveBits"]);
    const info = encoder.encode(`Auth.js Generated Encryption Key (${SALT})`);
    const bits = new Uint8Array(
      await crypto.subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt: encoder.encode(SALT), info }, base, 512),
    );
    const [mac, aes] = await Promise.all([
      crypto.subtle.importKey("raw", bits.slice(0, 32), { name: "HMAC", hash: "SHA-512" }, false, ["sign"]),
      crypto.subtle.importKey("raw", bits.slice(32), "AES-CBC", false, ["decrypt"]),
    ]);
    return { mac, aes };
  })();
  return keys;
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The claims of a token, or null: the tag first (constant time), then the content. */
async function open(token: string, secret: string): Promise<Record<string, unknown> | null> {
  const [header = "", , ivPart = "", ciphertextPart = "", tagPart = ""] = token.split(".");
  const { mac, aes } = await keysOf(secret);
  const aad = encoder.encode(header);
  const iv = fromBase64url(ivPart);
  const ciphertext = fromBase64url(ciphertextPart);
  const tag = fromBase64url(tagPart);
  const signed = new Uint8Array(aad.length + iv.length + ciphertext.length + 8);
  signed.set(aad);
  signed.set(iv, aad.length);
  signed.set(ciphertext, aad.length + iv.length);
  new DataView(signed.buffer).setBigUint64(signed.length - 8, BigInt(aad.length * 8));
  const full = new Uint8Array(await crypto.subtle.sign("HMAC", mac, signed));
  if (tag.length !== 32) return null;
  let difference = 0;
  for (let i = 0; i < 32; i++) difference |= (full[i] ?? 0) ^ (tag[i] ?? 0);
  if (difference !== 0) return null;
  const plaintext = await crypto.subtle.decrypt({ name: "AES-CBC", iv }, aes, ciphertext);
  const claims = JSON.parse(decoder.decode(plaintext));
  return typeof claims.exp === "number" && claims.exp * 1000 > Date.now() ? claims : null;
}

export default {
  async fetch(request: Request, env: { AUTH_SECRET: string }): Promise<Response> {
    const cookie = request.headers.get("cookie") ?? "";
    const at = cookie.indexOf(`${SALT}=`);
    const end = cookie.indexOf(";", at);
    const token = at < 0 ? "" : cookie.slice(at + SALT.length + 1, end < 0 ? undefined : end);
    const claims = token ? await open(token, env.AUTH_SECRET) : null;
    const session = claims && {
      user: { name: claims.name, email: claims.email },
      expires: new Date((claims.exp as number) * 1000).toISOString(),
    };
    return Response.json(session, { headers: noStore });
  },
};
