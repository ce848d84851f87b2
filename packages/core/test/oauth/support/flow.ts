/** Steps of an OAuth sign-in as a browser takes them, for in-process and over-the-network tests. */

import { beforeEach } from "vitest";
import { testSecret } from "../../helpers.js";
import type { Browser } from "./browser.js";

/**
 * A secret of its own for each test. Latchkey keeps rate limits, revocations and caches per
 * application, and an application is known by its secret (src/lib/base/application.ts): tests sharing
 * one constant would share counters. `SECRET` is reassigned before each test (importers read the
 * live binding); a configuration made before the tests run (at collection, in `beforeAll`) keeps
 * the first value, as all the tests using it are then one application anyway.
 */
export let SECRET = testSecret("oauth-flow");
beforeEach(() => {
  SECRET = testSecret("oauth-flow");
});

export interface StartOptions {
  basePath?: string;
  callbackUrl?: string;
  /** Query of the sign-in POST (authorization parameters such as login_hint). */
  query?: Record<string, string>;
  /** Ask to connect the account to the signed-in user (`connect=true` in the body). */
  connect?: boolean;
}

/** `POST <basePath>/signin/<id>` with a fresh CSRF token; returns the response (a redirect to the provider). */
export async function startSignIn(
  browser: Browser,
  app: string,
  providerId: string,
  options: StartOptions = {},
): Promise<Response> {
  const base = `${app}${options.basePath ?? "/auth"}`;
  const csrf = (await (await browser.get(`${base}/csrf`)).json()) as { csrfToken: string };
  const query = options.query ? `?${new URLSearchParams(options.query)}` : "";
  const form: Record<string, string> = { csrfToken: csrf.csrfToken };
  if (options.callbackUrl) form.callbackUrl = options.callbackUrl;
  if (options.connect) form.connect = "true";
  return browser.post(`${base}/signin/${providerId}${query}`, form);
}

/** The location of a redirect response; fails the test when there is none. */
export function locationOf(response: Response): string {
  const location = response.headers.get("location");
  if (!location) throw new Error(`Expected a redirect, got HTTP ${response.status}`);
  return location;
}

/** Logs in at the provider: follows its redirects until it sends the browser back to `app`. */
export function loginAtProvider(
  browser: Browser,
  authorizeUrl: string,
  app: string,
): Promise<{ url: string; form?: Record<string, string> }> {
  return browser.follow(authorizeUrl, (url) => url.startsWith(app));
}

/** Delivers the provider's answer to the callback (GET, or POST for form_post). */
export function deliver(browser: Browser, answer: { url: string; form?: Record<string, string> }): Promise<Response> {
  return answer.form ? browser.post(answer.url, answer.form) : browser.get(answer.url);
}

/** Sign-in, provider login and callback in one go; returns the callback's response. */
export async function signInThrough(
  browser: Browser,
  app: string,
  providerId: string,
  options: StartOptions = {},
): Promise<Response> {
  const start = await startSignIn(browser, app, providerId, options);
  const answer = await loginAtProvider(browser, locationOf(start), app);
  return deliver(browser, answer);
}

/** The session the application reports for this browser. */
export async function sessionOf(
  browser: Browser,
  app: string,
  basePath = "/auth",
): Promise<{ user?: { name?: string | null; email?: string | null; image?: string | null }; expires?: string } | null> {
  const response = await browser.get(`${app}${basePath}/session`);
  return (await response.json()) as { user?: { name?: string | null; email?: string | null } } | null;
}

/** The `Set-Cookie` headers of a response that delete cookies (Max-Age=0), by name. */
export function deletedCookies(response: Response): string[] {
  return response.headers
    .getSetCookie()
    .filter((c) => /;\s*max-age=0/i.test(c))
    .map((c) => c.slice(0, c.indexOf("=")));
}

/** The `Set-Cookie` header of `name` in a response. */
export function setCookie(response: Response, name: string): string | undefined {
  return response.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
}

/** A free port nobody listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const { createServer } = await import("node:net");
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
