/**
 * The authorization server's side of Latchkey's sessions: who is signed in (the one session
 * read, `sessionReadOf`, as the issuer's origin sees the request's cookies), where to
 * send a browser to sign in, and the CSRF token and check of its forms (Latchkey's double-submit
 * cookie, the one its own pages use).
 */

import type { Cookie } from "../../shapes/data.js";
import { InvalidConfiguration, MissingCSRF, UntrustedHost } from "../base/errors.js";
import { csrfTokenFor, requireCsrf } from "../serve/csrf-check.js";
import { sessionCookieOf } from "../serve/pipeline.js";
import { sessionReadOf } from "../session/request-read.js";
import type { ServerState } from "./config.js";
import type { ServerRequest } from "./http.js";
import type { SignedInAs } from "./records.js";

/** The session request of `req` as it reaches the issuer's origin (never the `Host` it names). */
function sessionRequest(server: ServerState, cookieHeader: string | null) {
  const url = new URL(server.issuer);
  return { protocol: url.protocol, host: url.host, cookieHeader };
}

/** Latchkey's refusal of an untrusted host, named as the authorization server's configuration mistake. */
function untrusted(server: ServerState, e: unknown): never {
  if (e instanceof UntrustedHost)
    throw new InvalidConfiguration(
      `The issuer ${server.issuer} is not a host Latchkey trusts for \`auth\`: set AUTH_URL to the application's URL (or \`trustHost: true\` behind a proxy you control).`,
    );
  throw e;
}

/** The session cookie and the request's cookies as Latchkey reads them at the issuer's origin. */
function cookieState(server: ServerState, cookieHeader: string | null): ReturnType<typeof sessionCookieOf> {
  try {
    return sessionCookieOf(sessionRequest(server, cookieHeader), server.auth);
  } catch (e) {
    return untrusted(server, e);
  }
}

/**
 * The user signed in on the request, how and when (the session read `GET <basePath>/session`
 * answers with), or null. A session with no subject (a JWT session made without a user id) is none.
 */
export async function signedInUser(
  server: ServerState,
  req: Pick<ServerRequest, "cookieHeader">,
): Promise<SignedInAs | null> {
  // Never throws: an issuer Latchkey does not trust is logged (UntrustedHost, naming the fix) and no session.
  const read = await sessionReadOf(sessionRequest(server, req.cookieHeader), server.auth, {
    subject: true,
    reissue: false,
  });
  const { subject: identity, amr = [] } = read;
  if (!identity) return null;
  return {
    userId: identity.userId,
    // Whole seconds (a JWT session records a fraction). Unknown (0) counts as too old for
    // `max_age` and `prompt=login`.
    authTime: Math.floor(identity.authTime ?? 0),
    amr,
    ...(identity.sessionId !== undefined && { sessionId: identity.sessionId }),
  };
}

/** The application's sign-in page, sending the browser to `callbackUrl` once signed in. */
export function signInUrl(server: ServerState, callbackUrl: string): string {
  const resolved = server.latchkey();
  const page = resolved.pages.signIn ?? `${resolved.basePath}/signin`;
  const url = new URL(page, server.origin);
  url.searchParams.set("callbackUrl", callbackUrl);
  return url.href;
}

/** The CSRF token of a form the server shows, and the cookie to set when the browser had none. */
export function csrfToken(
  server: ServerState,
  req: Pick<ServerRequest, "cookieHeader">,
): { token: string; cookies: Cookie[] } {
  const { resolved, cookie, cookies } = cookieState(server, req.cookieHeader);
  if (!cookie) return { token: "", cookies: [] };
  const { token, cookie: set } = csrfTokenFor(resolved, cookie, cookies);
  return { token, cookies: set ? [set] : [] };
}

/**
 * The CSRF check of a form the server shows (consent, device code, logout): throws `MissingCSRF`
 * unless `submitted` is the token of the request's signed CSRF cookie, and refuses a cross-site
 * post outright when the browser says it is one (`Sec-Fetch-Site`, `Origin`).
 */
export function checkFormPost(server: ServerState, req: ServerRequest, what: string): void {
  const site = req.headers.get("sec-fetch-site");
  const origin = req.headers.get("origin");
  const crossSite =
    (site !== null && site !== "same-origin" && site !== "none") || (origin !== null && origin !== server.origin);
  // Whatever the application's CSRF setting: a consent is never given by another site's form.
  if (crossSite) throw new MissingCSRF(`${what} was posted from another site`);
  const { resolved, cookie, cookies } = cookieState(server, req.cookieHeader);
  requireCsrf(resolved, cookie, cookies, req.body.one("csrfToken"), what);
}
