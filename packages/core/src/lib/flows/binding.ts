/**
 * The browser binding of a flow (RFC 9700 §4.7: the protection of a redirect flow is bound to the
 * user agent that began it). Every browser that begins a flow holds a random value in its binding
 * cookie; each flow's sealed state (OAuth check cookies, the WebAuthn challenge, a magic link)
 * carries a digest of it, and the flow finishes only on a request whose own binding cookie gives
 * the same digest. A check cookie planted from another browser (a sibling sub-domain writing
 * `Domain=<parent>`) carries its maker's digest and is refused.
 *
 * On https the cookie is `__Host-authjs.binding`: host-only, `Path=/`, `Secure`, which no sibling
 * sub-domain can set (RFC 6265bis §4.1.3.2). It is `SameSite=None` there, because a provider's
 * `response_mode=form_post` callback is a cross-site POST, which carries no `Lax` cookie (the CSRF
 * cookie is `Lax`, which is why it does not serve as the binding). The value is an opaque random
 * id with no authority of its own: every flow start stays CSRF-checked. Over plain http the cookie
 * has no prefix and a sibling can plant it too: nothing stops cookie tossing without TLS.
 */
import { hash, hkdf, hmac, randomBytes, timingSafeEqual, toBase64url, toHex, utf8 } from "#platform";
import type { CookieSerializeOptions } from "../../shapes/data.js";
import type { RequestInternal } from "../http/request.js";
import type { Context } from "../serve/context.js";

/** A year: a magic link opened days after it was asked for is still recognised. */
const BINDING_MAX_AGE = 365 * 24 * 60 * 60;
const VALUE = /^[0-9a-f]{64}$/;

/** Name and options of the binding cookie for this request's scheme. */
function bindingCookie(ctx: Context): { name: string; options: CookieSerializeOptions } {
  const secure = ctx.cookieOptions.sessionToken.options.secure === true;
  return {
    name: secure ? "__Host-authjs.binding" : "authjs.binding",
    options: { httpOnly: true, secure, path: "/", sameSite: secure ? "none" : "lax", maxAge: BINDING_MAX_AGE },
  };
}

/** The request's binding value, or undefined when it carries none (or a malformed one). */
function presentValue(req: RequestInternal, ctx: Context): string | undefined {
  if (ctx.mintedBinding) return ctx.mintedBinding;
  const raw = req.cookies[bindingCookie(ctx).name];
  return raw && VALUE.test(raw) ? raw : undefined;
}

/**
 * This browser's binding value, for a flow that begins now: the one its cookie holds, else a new
 * one whose cookie is queued on the response.
 */
function valueForStart(req: RequestInternal, ctx: Context): string {
  const present = presentValue(req, ctx);
  if (present) return present;
  const value = toHex(randomBytes(32));
  ctx.mintedBinding = value;
  const { name, options } = bindingCookie(ctx);
  ctx.cookies.push({ name, value, options });
  return value;
}

function digest(value: string): string {
  return toBase64url(hash("sha256", "latchkey browser binding\u0000", value));
}

/**
 * The digest a flow beginning on this request seals into its state (the binding cookie is set
 * when the browser has none yet).
 *
 * @example
 * ```ts
 * const sealed = sealToken({ value: verifier, provider: "google", bind: bindFlow(req, ctx) }, secrets, name, maxAge)
 * ```
 */
export function bindFlow(req: RequestInternal, ctx: Context): string {
  return digest(valueForStart(req, ctx));
}

/**
 * Whether `sealed` (the digest a flow sealed at its start) is this request's browser: false when
 * the request carries no binding cookie, or another browser's.
 *
 * @example
 * ```ts
 * if (!sameBrowser(req, ctx, payload.bind)) throw new InvalidCheck("began in another browser")
 * ```
 */
export function sameBrowser(req: RequestInternal, ctx: Context, sealed: unknown): boolean {
  const value = presentValue(req, ctx);
  if (!value || typeof sealed !== "string") return false;
  return timingSafeEqual(utf8(digest(value)), utf8(sealed));
}

function linkKey(secret: string): Uint8Array {
  return hkdf(secret, "", "Latchkey magic link binding", 32);
}

function linkMac(secret: string, value: string, identifier: string, token: string): string {
  return toBase64url(hmac("sha256", linkKey(secret), value, "\u0000", identifier, "\u0000", token));
}

/**
 * The `binding` parameter of a magic link asked for on this request: a MAC of this browser's
 * binding value, the address and the token under the first secret. It names no browser to anyone
 * without the secret and the cookie, and fits one link only.
 *
 * @example
 * ```ts
 * const params = new URLSearchParams({ callbackUrl, token, email, binding: bindLink(req, ctx, secret, email, token) })
 * ```
 */
export function bindLink(
  req: RequestInternal,
  ctx: Context,
  secret: string,
  identifier: string,
  token: string,
): string {
  return linkMac(secret, valueForStart(req, ctx), identifier, token);
}

/**
 * Whether a magic link's `binding` parameter was made for this request's browser, under any of
 * `secrets` (rotation). False without a binding cookie.
 *
 * @example
 * ```ts
 * if (linkOpenedWhereAsked(req, ctx, secrets, email, token, req.query.binding)) { ... sign in ... }
 * ```
 */
export function linkOpenedWhereAsked(
  req: RequestInternal,
  ctx: Context,
  secrets: readonly string[],
  identifier: string,
  token: string,
  binding: unknown,
): boolean {
  const value = presentValue(req, ctx);
  if (!value || typeof binding !== "string" || binding.length > 64) return false;
  const received = utf8(binding);
  for (const secret of secrets) {
    if (timingSafeEqual(utf8(linkMac(secret, value, identifier, token)), received)) return true;
  }
  return false;
}
