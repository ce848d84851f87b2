/**
 * The OAuth checks (PKCE, state, nonce). Each value lives in its own short-lived cookie
 * (`__Host-` on https), sealed (encrypted and authenticated, salt = the cookie name) together with
 * the id of the provider that made it and the flow's claims: the digest of the browser binding
 * (lib/flows/binding.ts) and, for a connect flow, the key of the session it began under. A cookie made
 * for one provider is refused on another provider's callback, and one made in another browser
 * (planted through a sibling sub-domain) on any callback. The cookies are cleared on every
 * callback, whatever its outcome.
 */
import * as o from "oauth4webapi";
import type { Cookie, CookieSerializeOptions } from "../../../shapes/data.js";
import { InvalidCheck } from "../../base/errors.js";
import { openToken, sealToken } from "../../crypto/jwe.js";
import { expiredCookie } from "../../http/cookies.js";
import type { RequestInternal } from "../../http/request.js";
import type { Context } from "../../serve/context.js";
import { sameBrowser } from "../binding.js";

/** Cookie roles that hold a check value. */
export type CheckRole = "pkceCodeVerifier" | "state" | "nonce";

const CHECK_ROLES: readonly CheckRole[] = ["pkceCodeVerifier", "state", "nonce"];
const LABEL: Record<CheckRole, string> = { pkceCodeVerifier: "PKCE code_verifier", state: "state", nonce: "nonce" };

/** A check lives 15 minutes: long enough to sign in at the provider, short enough to expire unused. */
const CHECK_MAX_AGE = 15 * 60;

/** Salt of the `state` value itself (not of its cookie); the same as Auth.js's, so a redirect proxy can read either. */
const STATE_SALT = "encodedState";

/** What every check cookie of a flow seals besides its value. */
export interface FlowClaims {
  /** Digest of the binding of the browser that began the flow (`bindFlow`). */
  bind: string;
  /** A connect flow: the key of the session it began under (`connectClaim`). */
  connect?: string;
}

/**
 * The cookie that carries one check value for `providerId`, with the flow's claims. With
 * `crossSite` (response_mode form_post, where the provider POSTs back from its own site) the
 * cookie is `SameSite=None; Secure`, or the browser would not send it with the callback.
 */
export async function checkCookie(
  ctx: Context,
  role: CheckRole,
  providerId: string,
  value: string,
  flow: FlowClaims,
  crossSite = false,
): Promise<Cookie> {
  const { name, options } = ctx.cookieOptions[role];
  const claims: Record<string, unknown> = { value, provider: providerId, bind: flow.bind };
  if (flow.connect !== undefined) claims.connect = flow.connect;
  const sealed = await sealToken(claims, ctx.config.secrets, name, CHECK_MAX_AGE);
  const cookieOptions: CookieSerializeOptions = { ...options, maxAge: options.maxAge ?? CHECK_MAX_AGE };
  if (crossSite) {
    cookieOptions.sameSite = "none";
    cookieOptions.secure = true;
  }
  return { name, value: sealed, options: cookieOptions };
}

/**
 * Reads the check value of `role` from the request's cookie, with the flow's connect claim.
 * Throws `InvalidCheck` when the cookie is missing (or sent twice), cannot be opened (tampered,
 * expired, another secret), was made for another provider, or was made in another browser.
 */
export async function readCheck(
  req: RequestInternal,
  ctx: Context,
  role: CheckRole,
  providerId: string,
): Promise<{ value: string; connect?: string }> {
  const { name } = ctx.cookieOptions[role];
  const raw = req.cookies[name];
  if (!raw)
    throw new InvalidCheck(
      `The ${LABEL[role]} cookie is missing (the sign-in did not start here, took longer than 15 minutes, or was already completed)`,
      { provider: providerId, check: role },
    );
  const payload = await openToken(raw, ctx.config.secrets, name);
  if (!payload || typeof payload.value !== "string" || !payload.value) {
    throw new InvalidCheck(
      `The ${LABEL[role]} cookie could not be read (tampered, expired or sealed with another secret)`,
      { provider: providerId, check: role },
    );
  }
  if (payload.provider !== providerId) {
    throw new InvalidCheck(`The ${LABEL[role]} cookie was made for another provider`, {
      provider: providerId,
      check: role,
      madeFor: payload.provider,
    });
  }
  if (!sameBrowser(req, ctx, payload.bind)) {
    throw new InvalidCheck(
      `The ${LABEL[role]} cookie was made in another browser (or this browser's binding cookie is missing): the sign-in must finish where it began`,
      { provider: providerId, check: role },
    );
  }
  return typeof payload.connect === "string"
    ? { value: payload.value, connect: payload.connect }
    : { value: payload.value };
}

/** Queues the deletion of every check cookie the request carried (a deletion survives an error response). */
export function clearChecks(req: RequestInternal, ctx: Context): void {
  for (const role of CHECK_ROLES) {
    const { name, options } = ctx.cookieOptions[role];
    if (req.cookies[name] !== undefined) ctx.cookies.push(expiredCookie(name, options));
  }
}

/** A PKCE pair: the verifier (kept in a cookie) and its S256 challenge (sent to the provider). */
export async function createPkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = o.generateRandomCodeVerifier();
  return { verifier, challenge: await o.calculatePKCECodeChallenge(verifier) };
}

/** A fresh nonce. */
export function createNonce(): string {
  return o.generateRandomNonce();
}

/**
 * A fresh `state` value: random, sealed, and carrying `origin` (the callback URL of the deployment
 * that started the sign-in) when a redirect proxy must send the user back there.
 */
export function createState(ctx: Context, origin?: string): string | Promise<string> {
  const claims: Record<string, unknown> = { random: o.generateRandomState() };
  if (origin) claims.origin = origin;
  return sealToken(claims, ctx.config.secrets, STATE_SALT, CHECK_MAX_AGE);
}

/** Opens a `state` value made by {@link createState}; null when it is not one (or expired). */
export async function decodeState(ctx: Context, state: string): Promise<{ origin?: string } | null> {
  const payload = await openToken(state, ctx.config.secrets, STATE_SALT);
  if (!payload) return null;
  return typeof payload.origin === "string" ? { origin: payload.origin } : {};
}
