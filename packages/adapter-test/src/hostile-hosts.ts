/**
 * The rule every framework package runs (issue 34 item 2): a host a client names never decides
 * where a mailed link points. An attacker asks for the victim's password reset, address
 * verification or magic link with a hostile `Host`, `X-Forwarded-Host` or `Forwarded`; the mail a
 * real SMTP server receives links to the application's origin, or no mail goes out (a logged
 * `UntrustedHost` names the fix) and the attacker is answered as the honest request is.
 *
 * The application is configured as many next-auth applications are (`trustHost: true`, no
 * `AUTH_URL`, no `trustedOrigins`, no `trustProxy`): the request's host may decide its own
 * redirects, never a mail. Each framework's test serves it with a small driver
 * ({@link HostileHostServer}) and calls {@link hostileHostMailCases}.
 * @module hostile-hosts
 */
import { randomBytes } from "node:crypto";
import { request as httpRequest } from "node:http";
import type { AuthConfig } from "@latchkey/core";
import { MemoryPasswordStore, type PasswordAccountsOptions } from "@latchkey/core/accounts";
import { createMemoryStore, MemoryAdapter } from "@latchkey/core/memory-adapter";
import Nodemailer from "@latchkey/core/providers/nodemailer";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** The application a framework serves: its configuration and its password accounts. */
export interface HostileHostApp {
  /** A configuration object of the application (a new one at each call: same secret, adapter, mailer). */
  config(): AuthConfig;
  /** The application's own configuration object. */
  own: AuthConfig;
  /** Password accounts mailing through the configuration's Nodemailer provider. */
  accounts: PasswordAccountsOptions;
}

/** What a framework serves of the application, on a loopback port. */
export interface HostileHostServer {
  /** The application's origin (`http://localhost:<port>`): the only origin a mailed link may have. */
  origin: string;
  /** Where the actions are served (`${origin}/auth`): the magic link is asked for at `${mount}/signin/nodemailer`. */
  mount: string;
  /**
   * A route of the application that takes `POST` JSON `{ email }`, asks for a password reset the
   * framework's way (`requestPasswordReset` with the request as the framework describes it), and
   * answers `200` JSON `{ ok }`.
   */
  forgot: string;
  /** The same for `signUp` (`{ email, password }`): it mails the address's verification link. */
  signUp: string;
  close(): Promise<void>;
}

/** One message the SMTP server received. */
interface Mail {
  to: string[];
  text: string;
}

/** A real SMTP server on 127.0.0.1 keeping what it receives. */
async function startSmtp(): Promise<{ port: number; mails: Mail[]; close(): Promise<void> }> {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          mails.push({
            to: session.envelope.rcptTo.map((r) => r.address),
            text: `${parsed.text ?? ""}\n${parsed.html || ""}`,
          });
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as { port: number }).port;
  return { port, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** An answer as an HTTP client sees it. */
export interface RawAnswer {
  status: number;
  location: string | null;
  setCookie: string[];
  /** Every header of the answer, as Node.js reads them (names in lower case). */
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One request over HTTP/1.1 with exactly the headers given (`Host` included: a client writes any
 * it likes; `fetch` would not send it), to the server at `url`.
 *
 * @example
 * ```ts
 * const answer = await rawRequest(`${origin}/auth/csrf`, "GET", { host: "evil.example" })
 * ```
 */
export function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawAnswer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method,
        headers: { ...headers, ...(body !== undefined && { "content-length": String(Buffer.byteLength(body)) }) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            location: typeof res.headers.location === "string" ? res.headers.location : null,
            setCookie: res.headers["set-cookie"] ?? [],
            headers: res.headers,
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** The `name=value` pairs of `Set-Cookie` values, as a `Cookie` header. */
function cookieHeader(setCookie: string[]): string {
  return setCookie.map((line) => line.split(";")[0]).join("; ");
}

/** The hostile headers of each attack, beside the `Host` of the honest request. */
function attacks(origin: string): Array<[string, (host: string) => Record<string, string>]> {
  const evil = "evil.example";
  return [
    ["a hostile Host", () => ({ host: evil })],
    [
      "a hostile X-Forwarded-Host (and X-Forwarded-Proto)",
      (host) => ({ host, "x-forwarded-host": evil, "x-forwarded-proto": "https" }),
    ],
    ["a hostile Forwarded (RFC 7239)", (host) => ({ host, forwarded: `for=203.0.113.9;host=${evil};proto=https` })],
    [
      "all of them at once, the real host listed first",
      () => ({
        host: evil,
        "x-forwarded-host": `${new URL(origin).host}, ${evil}`,
        "x-forwarded-proto": "https",
        forwarded: `host=${new URL(origin).host}, host=${evil};proto=https`,
      }),
    ],
  ];
}

/** Every link in a mail's text and HTML. */
function linksIn(text: string): URL[] {
  return [...text.matchAll(/https?:\/\/[^\s"'<>]+/g)].map((m) => new URL(m[0].replace(/&amp;/g, "&")));
}

/**
 * The rule, for one framework: `serve` starts it over the application (one for the whole suite).
 * Each flow is asked for honestly first (its mail must arrive, linking to the application's
 * origin: the harness delivers mail), then under each attack: every mail to the address links to
 * the application's origin and names no other host, or none went out and an `UntrustedHost` was
 * logged; the attacker's answer is the honest one's (status, and where it redirects to, less the
 * origin, which is the answer's own).
 */
export function hostileHostMailCases(label: string, serve: (app: HostileHostApp) => Promise<HostileHostServer>): void {
  describe(`${label}: rule: a host a client names never decides where a mailed link points`, () => {
    let smtp: Awaited<ReturnType<typeof startSmtp>>;
    let served: HostileHostServer;
    const errors: Error[] = [];
    const adapter = MemoryAdapter(createMemoryStore());
    let app: HostileHostApp;

    beforeAll(async () => {
      smtp = await startSmtp();
      const secret = `hostile-hosts-${randomBytes(16).toString("hex")}`;
      const mailer = Nodemailer({
        server: { host: "127.0.0.1", port: smtp.port, secure: false, ignoreTLS: true },
        from: "Latchkey <no-reply@app.test>",
      });
      const config = (): AuthConfig => ({
        secret,
        trustHost: true,
        adapter,
        rateLimit: false,
        logger: { error: (e) => void errors.push(e), warn() {}, debug() {} },
        providers: [mailer],
      });
      app = {
        config,
        own: config(),
        accounts: {
          passwords: new MemoryPasswordStore(),
          urls: { verify: "/verify", reset: "/reset", signIn: "/login", signUp: "/signup" },
          breached: false,
          hash: { parameters: { ln: 10 } },
        },
      };
      served = await serve(app);
    });
    afterAll(async () => {
      await served?.close();
      await smtp?.close();
    });

    const address = () => `victim-${randomBytes(6).toString("hex")}@example.com`;
    const mailsTo = (email: string) => smtp.mails.filter((m) => m.to.includes(email));

    /** The magic-link form: GET /csrf, then POST /signin/nodemailer, both with `headers`. */
    async function magicLink(headers: Record<string, string>, email: string): Promise<RawAnswer> {
      const csrf = await rawRequest(`${served.mount}/csrf`, "GET", headers);
      const { csrfToken } = JSON.parse(csrf.body) as { csrfToken: string };
      const form = new URLSearchParams({ csrfToken, email }).toString();
      return rawRequest(
        `${served.mount}/signin/nodemailer`,
        "POST",
        {
          ...headers,
          cookie: cookieHeader(csrf.setCookie),
          "content-type": "application/x-www-form-urlencoded",
        },
        form,
      );
    }

    async function forgot(headers: Record<string, string>, email: string): Promise<RawAnswer> {
      await adapter.createUser?.({ id: `u-${email}`, email, emailVerified: new Date(), name: null });
      return rawRequest(
        served.forgot,
        "POST",
        { ...headers, "content-type": "application/json" },
        JSON.stringify({ email }),
      );
    }

    async function signUp(headers: Record<string, string>, email: string): Promise<RawAnswer> {
      const body = JSON.stringify({ email, password: "a long and unguessable passphrase" });
      return rawRequest(served.signUp, "POST", { ...headers, "content-type": "application/json" }, body);
    }

    /** What the answer tells the client, less the origin of a redirect (the answer's own). */
    const told = (answer: RawAnswer) => ({
      status: answer.status,
      redirect:
        answer.location === null ? null : `${new URL(answer.location).pathname}${new URL(answer.location).search}`,
      body: answer.location === null ? answer.body : "",
    });

    const flows: Array<[string, (headers: Record<string, string>, email: string) => Promise<RawAnswer>]> = [
      ["a magic link", magicLink],
      ["a password reset", forgot],
      ["an address verification (sign-up)", signUp],
    ];

    it("attack: 30 hostile requests at once, of every flow and every header, mail no link to another host", async () => {
      const asked = Array.from({ length: 30 }, (_, i) => {
        const [, ask] = flows[i % flows.length] as (typeof flows)[number];
        const [, headersFor] = attacks(served.origin)[i % 4] as ReturnType<typeof attacks>[number];
        const email = address();
        return ask(headersFor(new URL(served.origin).host), email).then((answer) => ({ email, answer }));
      });
      for (const { email, answer } of await Promise.all(asked)) {
        expect(answer.status).toBeLessThan(500);
        for (const sent of mailsTo(email)) {
          expect(sent.text).not.toContain("evil.example");
          for (const link of linksIn(sent.text)) expect(link.origin).toBe(served.origin);
        }
      }
    });

    for (const [flow, ask] of flows) {
      it(`${flow}: asked honestly, mails a link to the application's origin; under each attack, no link to another host and the honest answer`, async () => {
        const host = new URL(served.origin).host;
        const honestEmail = address();
        const honest = await ask({ host }, honestEmail);
        const [mail] = mailsTo(honestEmail);
        expect(mail, "the honest request's mail").toBeDefined();
        const links = linksIn(mail?.text ?? "");
        expect(links.length).toBeGreaterThan(0);
        for (const link of links) expect(link.origin).toBe(served.origin);

        for (const [attack, headersFor] of attacks(served.origin)) {
          const email = address();
          const loggedBefore = errors.length;
          const answer = await ask(headersFor(host), email);
          expect(told(answer), attack).toEqual(told(honest));
          const mails = mailsTo(email);
          for (const sent of mails) {
            expect(sent.text, attack).not.toContain("evil.example");
            for (const link of linksIn(sent.text)) expect(link.origin, attack).toBe(served.origin);
          }
          if (mails.length === 0) {
            // Nothing went out: the operator is told why and how to fix it.
            const logged = errors
              .slice(loggedBefore)
              .map((e) => `${(e as { type?: string }).type ?? e.name}: ${e.message}`);
            expect(logged.join("\n"), attack).toMatch(/UntrustedHost: .*was not sent.*AUTH_URL.*trustedOrigins/s);
          }
        }
      });
    }
  });
}
