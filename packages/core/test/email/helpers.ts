// Shared by the e-mail tests: a real SMTP server (smtp-server, AUTH required, read back with
// mailparser), a cookie jar, and a browser-like walk through the flow with `Auth(Request)`.

import { createServer as createNetServer } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import { beforeEach, inject } from "vitest";
import { Auth, type AuthConfig } from "../../src/index.js";
import { testSecret } from "../helpers.js";

/**
 * A secret of its own for each test. Latchkey keeps rate limits, revocations and caches per
 * application, and an application is known by its secret (src/lib/base/application.ts): tests sharing
 * one constant would share counters. `SECRET` is reassigned before each test (importers read the
 * live binding); a configuration made before the tests run (at collection, in `beforeAll`) keeps
 * the first value, as all the tests using it are then one application anyway.
 */
export let SECRET = testSecret("email-test");
beforeEach(() => {
  SECRET = testSecret("email-test");
});
export const ORIGIN = "http://app.test:3000";
export const SMTP_USER = "mailer";
export const SMTP_PASS = "s3cret-smtp-pass";

/** One message the SMTP server received: its envelope and the parsed mail. */
export interface ReceivedMail {
  from: string;
  to: string[];
  mail: ParsedMail;
}

export interface SmtpFixture {
  port: number;
  mails: ReceivedMail[];
  /** Addresses for which RCPT TO is answered 550. */
  refuse: Set<string>;
  close(): Promise<void>;
}

/** A real SMTP server on 127.0.0.1, port 0, that only takes mail after AUTH with the test credentials. */
export async function startSmtp(): Promise<SmtpFixture> {
  const mails: ReceivedMail[] = [];
  const refuse = new Set<string>();
  const server = new SMTPServer({
    authOptional: false,
    authMethods: ["PLAIN", "LOGIN"],
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASS) return callback(null, { user: auth.username });
      return callback(new Error("Invalid username or password"));
    },
    onRcptTo(address, _session, callback) {
      if (refuse.has(address.address)) {
        const error = new Error("Mailbox unavailable") as Error & { responseCode: number };
        error.responseCode = 550;
        return callback(error);
      }
      return callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          mails.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            to: session.envelope.rcptTo.map((r) => r.address),
            mail,
          });
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as { port: number }).port;
  return { port, mails, refuse, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Nodemailer transport options for the fixture. */
export function smtpServer(port: number, pass = SMTP_PASS) {
  return { host: "127.0.0.1", port, secure: false, ignoreTLS: true, auth: { user: SMTP_USER, pass } };
}

/** Cookies as a browser would keep them for one origin (expiry by Max-Age=0 only). */
export class CookieJar {
  readonly values = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";");
      const index = pair.indexOf("=");
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      const removed = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === "";
      if (removed) this.values.delete(name);
      else this.values.set(name, value);
    }
  }
  header(): string {
    return [...this.values].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

/** Sends one request to `Auth` (redirects are not followed) and keeps its cookies. */
export async function send(config: AuthConfig, jar: CookieJar, url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (jar.values.size) headers.set("cookie", jar.header());
  const response = await Auth(new Request(new URL(url, ORIGIN), { ...init, headers }), config);
  jar.take(response);
  return response;
}

/** The action and hidden fields of the confirmation form of a magic link opened in another browser. */
export function confirmationForm(html: string): { action: string; fields: Record<string, string> } | null {
  if (!html.includes('class="confirm-link"')) return null;
  const decode = (text: string) =>
    text
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&#x2F;/gi, "/")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&");
  const action = /<form class="confirm-link" action="([^"]+)"/.exec(html)?.[1];
  if (!action) return null;
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1] as string] = decode(match[2] as string);
  }
  return { action: decode(action), fields };
}

/**
 * Opens a magic link as a person would: GET it; in a browser other than the one that asked for it
 * that shows the confirmation page, whose button is then pressed (a POST with its CSRF token).
 * Returns the last answer.
 */
export async function openLink(config: AuthConfig, jar: CookieJar, url: string): Promise<Response> {
  const opened = await send(config, jar, url);
  if (opened.status !== 200) return opened;
  const form = confirmationForm(await opened.text());
  if (!form) throw new Error("the link answered 200 without a confirmation form");
  return send(config, jar, form.action, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form.fields),
  });
}

/** GET /auth/csrf, then POST /auth/signin/<id> with the address: the sign-in form of a browser. */
export async function requestLink(
  config: AuthConfig,
  jar: CookieJar,
  providerId: string,
  email: string,
  callbackUrl = `${ORIGIN}/dashboard`,
): Promise<Response> {
  const csrf = await send(config, jar, "/auth/csrf");
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  return send(config, jar, `/auth/signin/${providerId}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken, email, callbackUrl }),
  });
}

/** The sign-in link in a text body. */
export function linkIn(text: string | undefined): string {
  const match = /https?:\/\/\S+\/callback\/\S+/.exec(text ?? "");
  if (!match) throw new Error(`no sign-in link in: ${text}`);
  return match[0];
}

/** The session the jar's cookies carry. */
export async function sessionOf(config: AuthConfig, jar: CookieJar): Promise<{ user?: { email?: string } } | null> {
  const response = await send(config, jar, "/auth/session");
  return (await response.json()) as { user?: { email?: string } } | null;
}

/** Polls `check` until it is true (for mail that arrives after the SMTP answer), `ms` scaled to the machine. */
export async function until(check: () => boolean, ms = 2000): Promise<void> {
  const end = performance.now() + ms * inject("timeScale");
  while (!check()) {
    if (performance.now() > end) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
