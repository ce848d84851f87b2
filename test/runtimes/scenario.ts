/**
 * The checks every runtime must pass, written once: a new user's flows through the request
 * pipeline (a credentials sign-in, the session read by `GET /auth/session` and by the
 * application's own code, sign-out) and an attacker's (a wrong password, a tampered cookie, a
 * sign-in without or with another browser's CSRF token, a callback URL on another origin, an
 * oversized body, fifty reads at once), and a session cookie sealed by Auth.js. Each check talks
 * HTTP to a `Site`: an application served on one runtime (`runtimes.ts`), from this process.
 */
import { request as httpRequest } from "node:http";
import { encode } from "@auth/core/jwt";
import { expect } from "vitest";
import { Jar, oversizedForm } from "../frameworks/http.js";

/** An application running on one runtime, as the checks see it. */
export interface Site {
  /** Its origin, e.g. `http://127.0.0.1:41234`; Latchkey's actions are under `<url>/auth`. */
  url: string;
  /** The secret it was given (an Auth.js cookie is sealed with it). */
  secret: string;
  /** The user who signs in: the form's fields with the right password, and with a wrong one. */
  account: { name: string; email: string; form: Record<string, string>; wrongPassword: Record<string, string> };
  /** Who the application's own code (`getSession`, a guard) finds signed in: an e-mail, or null. */
  signedIn(jar: Jar): Promise<string | null>;
  /** A page only a signed-in user may see, when the application has one (`requireAuth`). */
  guarded?: string;
  /**
   * For the checks of `clientChecks`: whether the application sees each client's own address on
   * this runtime (its sign-in limits then count per client), or sees none.
   */
  peerAddress?: boolean;
}

export interface Check {
  name: string;
  run(site: Site): Promise<void>;
}

const SESSION = "authjs.session-token";

async function csrfToken(site: Site, jar: Jar): Promise<string> {
  const response = await jar.fetch(`${site.url}/auth/csrf`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { csrfToken: string }).csrfToken;
}

function signIn(site: Site, jar: Jar, form: Record<string, string>, csrf: string | undefined): Promise<Response> {
  return jar.fetch(`${site.url}/auth/callback/credentials`, {
    form: csrf === undefined ? form : { ...form, csrfToken: csrf },
  });
}

/** The session `GET /auth/session` answers (null when signed out). */
async function sessionOf(site: Site, jar: Jar): Promise<{ user?: { email?: string; name?: string } } | null> {
  const response = await jar.fetch(`${site.url}/auth/session`);
  expect(response.status).toBe(200);
  expect(response.headers.get("cache-control")).toContain("no-store");
  return (await response.json()) as { user?: { email?: string; name?: string } } | null;
}

/** A browser signed in with the right password. */
async function signedInJar(site: Site): Promise<Jar> {
  const jar = new Jar();
  const response = await signIn(site, jar, site.account.form, await csrfToken(site, jar));
  expect(response.status).toBe(302);
  expect(jar.cookies.has(SESSION)).toBe(true);
  return jar;
}

/** Expects a sign-in refused with `error` on the sign-in page, and no session. */
async function expectRefused(site: Site, jar: Jar, response: Response, error: string): Promise<void> {
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get("location") ?? "", site.url);
  expect(`${location.origin}${location.pathname}`).toBe(`${site.url}/auth/signin`);
  expect(location.searchParams.get("error")).toBe(error);
  expect(jar.cookies.has(SESSION)).toBe(false);
  expect(await sessionOf(site, jar)).toBeNull();
}

export const checks: Check[] = [
  {
    name: "serves the sign-in page with the credentials form",
    async run(site) {
      const response = await fetch(`${site.url}/auth/signin`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
      expect(await response.text()).toContain(`action="${site.url}/auth/callback/credentials"`);
    },
  },
  {
    name: "a credentials sign-in sets the session cookie, lands on the site, and GET /auth/session reads it",
    async run(site) {
      const jar = new Jar();
      const response = await signIn(site, jar, site.account.form, await csrfToken(site, jar));
      expect(response.status).toBe(302);
      expect(new URL(response.headers.get("location") ?? "").origin).toBe(site.url);
      expect(jar.cookies.get(SESSION)).toMatch(/^[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+$/); // a JWE, `dir`: no key part
      expect(await sessionOf(site, jar)).toMatchObject({
        user: { name: site.account.name, email: site.account.email },
      });
    },
  },
  {
    name: "the application's own session read finds the signed-in user, and nobody without the cookie",
    async run(site) {
      expect(await site.signedIn(await signedInJar(site))).toBe(site.account.email);
      expect(await site.signedIn(new Jar())).toBeNull();
    },
  },
  {
    name: "a wrong password, and an unknown address, are refused alike with CredentialsSignin and no session",
    async run(site) {
      const jar = new Jar();
      await expectRefused(
        site,
        jar,
        await signIn(site, jar, site.account.wrongPassword, await csrfToken(site, jar)),
        "CredentialsSignin",
      );
      const unknown = { ...site.account.form, email: `nobody-${site.account.email}` };
      await expectRefused(site, jar, await signIn(site, jar, unknown, await csrfToken(site, jar)), "CredentialsSignin");
    },
  },
  {
    name: "a tampered session cookie reads as signed out (200 null, the cookie cleared), never a 5xx",
    async run(site) {
      const jar = await signedInJar(site);
      const token = jar.cookies.get(SESSION) ?? "";
      const at = token.lastIndexOf(".") - 5; // a character of the ciphertext
      jar.cookies.set(SESSION, `${token.slice(0, at)}${token[at] === "A" ? "B" : "A"}${token.slice(at + 1)}`);
      const response = await fetch(`${site.url}/auth/session`, { headers: { cookie: jar.header() } });
      expect(response.status).toBe(200);
      expect(await response.json()).toBeNull();
      expect(response.headers.getSetCookie().some((c) => c.startsWith(`${SESSION}=;`))).toBe(true);
      expect(await site.signedIn(jar)).toBeNull();
    },
  },
  {
    name: "a sign-in without a CSRF token is refused with MissingCSRF",
    async run(site) {
      const jar = new Jar();
      await csrfToken(site, jar); // the browser has its CSRF cookie, the form lacks the token
      await expectRefused(site, jar, await signIn(site, jar, site.account.form, undefined), "MissingCSRF");
    },
  },
  {
    name: "a sign-in with another browser's CSRF token is refused",
    async run(site) {
      const victim = new Jar();
      await csrfToken(site, victim);
      const attacker = new Jar();
      await expectRefused(
        site,
        victim,
        await signIn(site, victim, site.account.form, await csrfToken(site, attacker)),
        "MissingCSRF",
      );
    },
  },
  {
    name: "a callback URL on another origin is not followed; a path on the site is",
    async run(site) {
      const away = new Jar();
      const token = await csrfToken(site, away);
      const evil = await signIn(site, away, { ...site.account.form, callbackUrl: "https://evil.example/steal" }, token);
      expect(evil.status).toBe(302);
      expect(new URL(evil.headers.get("location") ?? "").origin).toBe(site.url);
      const home = new Jar();
      const own = await signIn(
        site,
        home,
        { ...site.account.form, callbackUrl: "/somewhere?x=1" },
        await csrfToken(site, home),
      );
      expect(own.headers.get("location")).toBe(`${site.url}/somewhere?x=1`);
    },
  },
  {
    name: "sign-out clears the session cookie and the session reads as null",
    async run(site) {
      const jar = await signedInJar(site);
      const response = await jar.fetch(`${site.url}/auth/signout`, { form: { csrfToken: await csrfToken(site, jar) } });
      expect(response.status).toBe(302);
      expect(jar.cookies.has(SESSION)).toBe(false);
      expect(await sessionOf(site, jar)).toBeNull();
      expect(await site.signedIn(jar)).toBeNull();
    },
  },
  {
    name: "a session cookie sealed by Auth.js (@auth/core) is read",
    async run(site) {
      const { name, email } = site.account;
      const token = await encode({ token: { name, email, sub: "authjs-user" }, secret: site.secret, salt: SESSION });
      const jar = new Jar();
      jar.cookies.set(SESSION, token);
      expect(await sessionOf(site, jar)).toMatchObject({ user: { name, email } });
      expect(await site.signedIn(jar)).toBe(email);
    },
  },
  {
    name: "fifty session reads at once all find the user",
    async run(site) {
      const cookie = (await signedInJar(site)).header();
      const reads = await Promise.all(
        Array.from({ length: 50 }, async () => {
          const response = await fetch(`${site.url}/auth/session`, { headers: { cookie } });
          return {
            status: response.status,
            email: ((await response.json()) as { user?: { email?: string } } | null)?.user?.email,
          };
        }),
      );
      expect(reads).toEqual(Array.from({ length: 50 }, () => ({ status: 200, email: site.account.email })));
    },
  },
  {
    name: "a body over 64 KiB is refused with 413",
    async run(site) {
      expect((await oversizedForm(`${site.url}/auth`)).status).toBe(413);
    },
  },
];

/** The checks of a page guarded by `requireAuth`: run on applications that have one. */
export const guardChecks: Check[] = [
  {
    name: "a guarded page sends a signed-out browser to sign in, and shows a signed-in one",
    async run(site) {
      const path = site.guarded ?? "";
      const away = await fetch(`${site.url}${path}`, { redirect: "manual", headers: { accept: "text/html" } });
      expect(away.status).toBe(302);
      expect(new URL(away.headers.get("location") ?? "", site.url).href).toBe(
        `${site.url}/auth/signin?callbackUrl=${encodeURIComponent(path)}`,
      );
      const jar = await signedInJar(site);
      expect((await jar.fetch(`${site.url}${path}`)).status).toBe(200);
    },
  },
];

/**
 * `fetch` (GET, or POST of a form) from another client: the connection leaves from
 * `localAddress` (127.0.0.2: Linux routes all of 127/8 to loopback), so the server's peer is that
 * address. The browser's cookies are `jar`'s.
 */
function fetchFrom(localAddress: string, jar: Jar, url: string, form?: Record<string, string>, headers = {}) {
  const body = form && new URLSearchParams(form).toString();
  return new Promise<Response>((resolve, reject) => {
    const request = httpRequest(
      url,
      {
        method: body === undefined ? "GET" : "POST",
        localAddress,
        headers: {
          ...headers,
          cookie: jar.header(),
          ...(body === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" }),
        },
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
        incoming.on("end", () => {
          const answer = new Headers();
          for (const [name, value] of Object.entries(incoming.headers)) {
            for (const one of Array.isArray(value) ? value : [value ?? ""]) answer.append(name, one);
          }
          resolve(jar.apply(new Response(Buffer.concat(chunks), { status: incoming.statusCode, headers: answer })));
        });
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

/** The checks of an application that says whether it sees its clients' addresses (`Site.peerAddress`). */
export const clientChecks: Check[] = [
  {
    name: "a guesser at one address is held off an account, and its owner at another is not where the runtime gives the client's address (forwarding headers count for nothing)",
    async run(site) {
      const guesser = new Jar();
      const from = "127.0.0.2";
      let status = 0;
      // 5 failed attempts per account and address by default, then 429; each guess claims another address.
      for (let attempt = 1; attempt <= 8 && status !== 429; attempt++) {
        const csrf = await fetchFrom(from, guesser, `${site.url}/auth/csrf`);
        const { csrfToken: token } = (await csrf.json()) as { csrfToken: string };
        const spoofed = `198.51.100.${attempt}`;
        const response = await fetchFrom(
          from,
          guesser,
          `${site.url}/auth/callback/credentials`,
          { ...site.account.wrongPassword, csrfToken: token },
          { "x-forwarded-for": spoofed, "x-real-ip": spoofed, "cf-connecting-ip": spoofed },
        );
        status = response.status;
        if (status !== 429)
          expect(new URL(response.headers.get("location") ?? "").searchParams.get("error")).toBe("CredentialsSignin");
      }
      expect(status).toBe(429);

      const owner = new Jar();
      const response = await signIn(site, owner, site.account.form, await csrfToken(site, owner));
      if (site.peerAddress) {
        expect(response.status).toBe(302);
        expect(new URL(response.headers.get("location") ?? "").origin).toBe(site.url);
        expect(await site.signedIn(owner)).toBe(site.account.email);
      } else {
        // No address on this runtime: the attempts of every client count as one client's.
        expect(response.status).toBe(429);
        expect(owner.cookies.has(SESSION)).toBe(false);
      }
    },
  },
];
