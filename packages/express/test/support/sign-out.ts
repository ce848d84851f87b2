/**
 * A sign-out as the two kinds of client post it, and what its answer claims. Shared by the tests
 * that cut or kill a store during sign-outs (revocation-scale-out, scale-out).
 */
import { expect } from "vitest";
import type { Jar } from "../helpers.js";

/** What a sign-out's answer claims: done (the callback URL), or not done (and how it said so). */
export type Outcome = { done: true } | { done: false; status: number };

/**
 * Posts a sign-out from `jar` as a browser form (`form`: Accept text/html) or as Auth.js's
 * `signOut()` does (`script`: `X-Auth-Return-Redirect`), and says what the answer claims: done
 * (the callback URL) or not done (the SignOutError page, or a 503 naming it). Anything else fails.
 */
export async function signOut(base: string, jar: Jar, client: "form" | "script", csrf?: string): Promise<Outcome> {
  const csrfToken = csrf ?? ((await (await jar.fetch(`${base}/auth/csrf`)).json()) as { csrfToken: string }).csrfToken;
  const headers: Record<string, string> =
    client === "form" ? { accept: "text/html" } : { "x-auth-return-redirect": "1" };
  const response = await jar.fetch(`${base}/auth/signout`, { form: { csrfToken }, headers });
  const errorPage = `${base}/auth/error?error=SignOutError`;
  if (client === "form") {
    expect(response.status).toBe(302);
    const location = response.headers.get("location");
    if (location === errorPage) return { done: false, status: 302 };
    expect(new URL(location ?? "", base).href, "the callback URL").toBe(new URL(base).href);
    return { done: true };
  }
  const body = (await response.json()) as { url?: string; error?: string };
  if (response.status === 503) {
    expect(body).toEqual({ error: "SignOutError", url: errorPage });
    return { done: false, status: 503 };
  }
  expect(response.status).toBe(200);
  expect(new URL(body.url ?? "", base).href, "the callback URL").toBe(new URL(base).href);
  return { done: true };
}

/** Signs out again and again until the answer says done (each attempt is the wait); bounded. */
export async function signOutUntilDone(base: string, jar: Jar, deadlineMs = 15_000): Promise<void> {
  const started = performance.now();
  while (!(await signOut(base, jar, "script")).done) {
    if (performance.now() - started > deadlineMs) throw new Error(`sign-out still not done after ${deadlineMs} ms`);
  }
}
