import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { AuthConfig } from "../../src/index.js";
import { hashVerificationToken, verificationTokenKey } from "../../src/lib/flows/email/token.js";
import { createMemoryStore, MemoryAdapter, type MemoryStore } from "../../src/memory-adapter.js";
import Email from "../../src/providers/email.js";
import Nodemailer from "../../src/providers/nodemailer.js";
import {
  CookieJar,
  closedPort,
  linkIn,
  ORIGIN,
  openLink,
  requestLink,
  SECRET,
  SMTP_PASS,
  SMTP_USER,
  type SmtpFixture,
  send,
  sessionOf,
  smtpServer,
  startSmtp,
} from "./helpers.js";

let smtp: SmtpFixture;
beforeAll(async () => {
  smtp = await startSmtp();
});
afterAll(() => smtp.close());
afterEach(() => {
  vi.useRealTimers();
  smtp.mails.length = 0;
  smtp.refuse.clear();
});

function setup(overrides: Partial<AuthConfig> = {}, provider: Parameters<typeof Nodemailer>[0] = {}) {
  const store: MemoryStore = createMemoryStore();
  const errors: Error[] = [];
  const events: string[] = [];
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    trustedOrigins: [ORIGIN],
    adapter: MemoryAdapter(store),
    logger: { error: (e) => void errors.push(e), warn: () => {}, debug: () => {} },
    events: { createUser: () => void events.push("createUser"), signIn: () => void events.push("signIn") },
    providers: [Nodemailer({ server: smtpServer(smtp.port), from: "Latchkey Test <no-reply@app.test>", ...provider })],
    ...overrides,
  };
  return { config, store, errors, events };
}

/** Requests a link for `email` and returns it from the mail. */
async function mailedLink(config: AuthConfig, email: string, jar = new CookieJar()): Promise<string> {
  const before = smtp.mails.length;
  const response = await requestLink(config, jar, "nodemailer", email);
  expect(response.status).toBe(302);
  expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/verify-request?provider=nodemailer&type=email`);
  expect(smtp.mails.length).toBe(before + 1);
  return linkIn(smtp.mails.at(-1)?.mail.text);
}

describe("e-mail sign-in over a real SMTP server", () => {
  it("mails one recipient a working link, in text and HTML, and the link signs in on the callbackUrl", async () => {
    const { config, store, events } = setup();
    const jar = new CookieJar();
    const response = await requestLink(config, jar, "nodemailer", "  Ada@Example.COM ");
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/verify-request?provider=nodemailer&type=email`);

    expect(smtp.mails).toHaveLength(1);
    const [received] = smtp.mails;
    expect(received?.to).toEqual(["ada@example.com"]);
    expect(received?.from).toBe("no-reply@app.test");
    const mail = received?.mail;
    expect(mail?.subject).toBe("Sign in to app.test:3000");
    const link = linkIn(mail?.text);
    const url = new URL(link);
    expect(url.origin).toBe(ORIGIN);
    expect(url.pathname).toBe("/auth/callback/nodemailer");
    expect(url.searchParams.get("email")).toBe("ada@example.com");
    expect(url.searchParams.get("callbackUrl")).toBe(`${ORIGIN}/dashboard`);
    expect(url.searchParams.get("token")).toMatch(/^[0-9a-f]{64}$/);
    expect(url.searchParams.get("binding")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(mail?.html).toContain(`href="${link.replace(/&/g, "&amp;")}"`);

    // Only the keyed hash is stored, bound to the address.
    const stored = [...store.verificationTokens.values()];
    expect(stored).toHaveLength(1);
    const token = url.searchParams.get("token") as string;
    expect(stored[0]?.token).not.toContain(token);
    expect(stored[0]?.token).toBe(hashVerificationToken(verificationTokenKey(SECRET), "ada@example.com", token));
    expect(stored[0]?.expires.getTime()).toBeGreaterThan(Date.now() + 590_000);
    expect(stored[0]?.expires.getTime()).toBeLessThanOrEqual(Date.now() + 600_000);

    // Opened in the browser that asked for it: signs in at once, no confirmation.
    const browser = jar;
    const click = await send(config, browser, link);
    expect(click.status).toBe(302);
    expect(click.headers.get("location")).toBe(`${ORIGIN}/dashboard`);
    expect((await sessionOf(config, browser))?.user?.email).toBe("ada@example.com");
    expect(store.sessions.size).toBe(1);
    const [user] = [...store.users.values()];
    expect(user?.email).toBe("ada@example.com");
    expect(user?.emailVerified).toBeInstanceOf(Date);
    expect(events).toEqual(["createUser", "signIn"]);
    expect(store.verificationTokens.size).toBe(0);
  });

  it("refuses a second use of the link", async () => {
    const { config, store } = setup();
    const link = await mailedLink(config, "bob@example.com");
    expect((await openLink(config, new CookieJar(), link)).headers.get("location")).toBe(`${ORIGIN}/dashboard`);
    const again = await openLink(config, new CookieJar(), link);
    expect(again.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Verification`);
    expect(store.sessions.size).toBe(1);
  });

  it("refuses the token with another e-mail address, and leaves it usable by its own", async () => {
    const { config, store } = setup();
    const link = await mailedLink(config, "carol@example.com");
    const forged = new URL(link);
    forged.searchParams.set("email", "mallory@example.com");
    const response = await openLink(config, new CookieJar(), forged.href);
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Verification`);
    expect(store.users.size).toBe(0);
    expect(store.sessions.size).toBe(0);
    expect((await openLink(config, new CookieJar(), link)).headers.get("location")).toBe(`${ORIGIN}/dashboard`);
  });

  it("refuses a forged or missing token", async () => {
    const { config } = setup();
    const link = new URL(await mailedLink(config, "dan@example.com"));
    link.searchParams.set("token", "0".repeat(64));
    expect((await openLink(config, new CookieJar(), link.href)).headers.get("location")).toBe(
      `${ORIGIN}/auth/error?error=Verification`,
    );
    link.searchParams.delete("token");
    expect((await openLink(config, new CookieJar(), link.href)).headers.get("location")).toBe(
      `${ORIGIN}/auth/error?error=Verification`,
    );
  });

  it("expires the link after maxAge (controlled clock), and honours a custom maxAge", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = new Date("2030-01-01T00:00:00Z");
    vi.setSystemTime(start);
    const { config } = setup({}, { maxAge: 120 });
    const late = await mailedLink(config, "erin@example.com");
    const inTime = await mailedLink(config, "frank@example.com");

    vi.setSystemTime(start.getTime() + 119_000);
    expect((await openLink(config, new CookieJar(), inTime)).headers.get("location")).toBe(`${ORIGIN}/dashboard`);
    vi.setSystemTime(start.getTime() + 120_001);
    expect((await openLink(config, new CookieJar(), late)).headers.get("location")).toBe(
      `${ORIGIN}/auth/error?error=Verification`,
    );
  });

  it("makes exactly one session out of 50 concurrent clicks on one link", async () => {
    const { config, store } = setup();
    const link = await mailedLink(config, "grace@example.com");
    const responses = await Promise.all(Array.from({ length: 50 }, () => openLink(config, new CookieJar(), link)));
    const locations = responses.map((r) => r.headers.get("location"));
    expect(locations.filter((l) => l === `${ORIGIN}/dashboard`)).toHaveLength(1);
    expect(locations.filter((l) => l === `${ORIGIN}/auth/error?error=Verification`)).toHaveLength(49);
    expect(store.sessions.size).toBe(1);
    expect(store.users.size).toBe(1);
  });

  it("answers EmailSignin when the SMTP server is down, logs the cause and keeps no token", async () => {
    const { config, store, errors } = setup({}, { server: smtpServer(await closedPort()) });
    const response = await requestLink(config, new CookieJar(), "nodemailer", "heidi@example.com");
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=EmailSignin`);
    expect(store.verificationTokens.size).toBe(0);
    expect(errors.map((e) => (e as { type?: string }).type)).toContain("EmailSignInError");
    const logged = errors.find((e) => (e as { type?: string }).type === "EmailSignInError") as Error & {
      cause?: { err?: Error };
    };
    expect(logged.cause?.err?.message).toMatch(/ECONNREFUSED|connect/i);
  });

  it("answers EmailSignin when the server refuses the login or the recipient", async () => {
    const wrongPass = setup({}, { server: smtpServer(smtp.port, "wrong-password") });
    const denied = await requestLink(wrongPass.config, new CookieJar(), "nodemailer", "ivan@example.com");
    expect(denied.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=EmailSignin`);
    expect(wrongPass.store.verificationTokens.size).toBe(0);

    smtp.refuse.add("judy@example.com");
    const refused = setup();
    const response = await requestLink(refused.config, new CookieJar(), "nodemailer", "judy@example.com");
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=EmailSignin`);
    expect(refused.store.verificationTokens.size).toBe(0);
    expect(smtp.mails).toHaveLength(0);
  });

  it.each([
    ["a list", "ada@example.com, eve@evil.test"],
    ["a semicolon list", "ada@example.com;eve@evil.test"],
    ["two @", "ada@example.com@evil.test"],
    ["no @", "ada.example.com"],
    ["a quoted local part", '"ada@example.com"@evil.test'],
    ["a display name", "Ada <eve@evil.test>"],
    ["a header injection", "ada@example.com\r\nBcc: eve@evil.test"],
    ["a bare LF", "ada@example.com\nbcc:eve@evil.test"],
    ["an inner space", "ada @example.com"],
    ["a full-width @ (U+FF20)", "ada\uFF20example.com"],
    ["a small @ (U+FE6B)", "ada\uFE6Bexample.com"],
    ["a Cyrillic a in the domain", "ada@ex\u0430mple.com"],
    ["a full-width letter", "ada@\uFF45xample.com"],
    ["a zero-width space", "ada@exam\u200Bple.com"],
    ["a mixed-script Punycode domain", "ada@xn--pple-43d.com"],
    ["an IP literal", "ada@[127.0.0.1]"],
    ["a source route", "eve%evil.test@example.com"],
    ["a bang path", "evil.test!eve@example.com"],
    ["an empty address", "   "],
    ["a single-label domain", "ada@localhost"],
  ])("refuses %s before any mail is sent", async (_label, address) => {
    const { config, store } = setup();
    const response = await requestLink(config, new CookieJar(), "nodemailer", address);
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=EmailSignin`);
    expect(smtp.mails).toHaveLength(0);
    expect(store.verificationTokens.size).toBe(0);
  });

  it("asks the signIn callback twice: with verificationRequest, then after the click", async () => {
    const calls: Array<{ email?: { verificationRequest?: boolean }; user: { email?: string | null } }> = [];
    const { config } = setup({
      callbacks: {
        signIn: (params) => {
          calls.push(params as (typeof calls)[number]);
          return true;
        },
      },
    });
    const link = await mailedLink(config, "kim@example.com");
    expect(calls).toHaveLength(1);
    expect(calls[0]?.email).toEqual({ verificationRequest: true });
    expect(calls[0]?.user.email).toBe("kim@example.com");
    await openLink(config, new CookieJar(), link);
    expect(calls).toHaveLength(2);
    expect(calls[1]?.email).toBeUndefined();
  });

  it("sends nothing when the signIn callback refuses, and redirects where it says", async () => {
    const refusing = setup({ callbacks: { signIn: ({ email }) => !email?.verificationRequest } });
    const denied = await requestLink(refusing.config, new CookieJar(), "nodemailer", "leo@example.com");
    expect(denied.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=AccessDenied`);
    expect(smtp.mails).toHaveLength(0);
    expect(refusing.store.verificationTokens.size).toBe(0);

    const elsewhere = setup({ callbacks: { signIn: () => "/not-allowed" } });
    const moved = await requestLink(elsewhere.config, new CookieJar(), "nodemailer", "leo@example.com");
    expect(moved.headers.get("location")).toBe(`${ORIGIN}/not-allowed`);
    expect(smtp.mails).toHaveLength(0);
  });

  it("refuses the click when the signIn callback says no then, creating no user", async () => {
    const { config, store } = setup({ callbacks: { signIn: ({ email }) => email?.verificationRequest === true } });
    const link = await mailedLink(config, "mia@example.com");
    const response = await openLink(config, new CookieJar(), link);
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=AccessDenied`);
    expect(store.users.size).toBe(0);
    expect(store.sessions.size).toBe(0);
  });

  it("keeps a foreign callbackUrl out of the link, and sends new users to pages.newUser", async () => {
    const { config } = setup({ pages: { newUser: "/welcome" } });
    const jar = new CookieJar();
    await requestLink(config, jar, "nodemailer", "nina@example.com", "https://evil.test/steal");
    const link = new URL(linkIn(smtp.mails.at(-1)?.mail.text));
    expect(link.searchParams.get("callbackUrl")).toBe(ORIGIN);
    const first = await openLink(config, new CookieJar(), link.href);
    expect(first.headers.get("location")).toBe(`/welcome?callbackUrl=${encodeURIComponent(`${ORIGIN}/`)}`);
    // The second sign-in of the same user goes to the callbackUrl.
    const second = await mailedLink(config, "nina@example.com");
    expect((await openLink(config, new CookieJar(), second)).headers.get("location")).toBe(`${ORIGIN}/dashboard`);
  });

  it("signs an existing verified user in without creating another (an unverified one: security/account-pre-hijacking.test.ts)", async () => {
    const { config, store, events } = setup();
    const verifiedAt = new Date(Date.now() - 86_400_000);
    await MemoryAdapter(store).createUser?.({
      id: "u1",
      email: "olga@example.com",
      emailVerified: verifiedAt,
      name: "Olga",
    });
    const link = await mailedLink(config, "OLGA@example.com");
    await openLink(config, new CookieJar(), link);
    expect(store.users.size).toBe(1);
    expect(store.users.get("u1")?.emailVerified).toEqual(verifiedAt);
    expect([...store.sessions.values()][0]?.userId).toBe("u1");
    expect(events).toEqual(["signIn"]);
  });

  it("starts a JWT session when the strategy is jwt", async () => {
    const { config, store } = setup({ session: { strategy: "jwt" } });
    const link = await mailedLink(config, "pat@example.com");
    const jar = new CookieJar();
    await openLink(config, jar, link);
    expect(store.sessions.size).toBe(0);
    expect((await sessionOf(config, jar))?.user?.email).toBe("pat@example.com");
  });

  it("uses the provider's generateVerificationToken, normalizeIdentifier, sendVerificationRequest and secret", async () => {
    const sent: Array<{ identifier: string; url: string; token: string }> = [];
    const { config, store } = setup(
      {},
      {
        secret: "provider-only-secret-provider-only-secret",
        generateVerificationToken: () => "custom-token-123456",
        normalizeIdentifier: (value) => `${value.trim().toLowerCase().split("@")[0]}@corp.example`,
        sendVerificationRequest: (params) => void sent.push(params),
      },
    );
    await requestLink(config, new CookieJar(), "nodemailer", "Quinn@anything.example");
    expect(smtp.mails).toHaveLength(0);
    expect(sent[0]?.identifier).toBe("quinn@corp.example");
    expect(sent[0]?.token).toBe("custom-token-123456");
    const [stored] = [...store.verificationTokens.values()];
    expect(stored?.token).toBe(
      hashVerificationToken(
        verificationTokenKey("provider-only-secret-provider-only-secret"),
        "quinn@corp.example",
        "custom-token-123456",
      ),
    );
    expect((await openLink(config, new CookieJar(), sent[0]?.url as string)).headers.get("location")).toBe(
      `${ORIGIN}/dashboard`,
    );
  });

  it("still refuses a list or a line break that a custom normalizeIdentifier lets through", async () => {
    const { config } = setup({}, { normalizeIdentifier: (value) => value });
    for (const address of ["a@b.example,c@d.example", "a@b.example\r\nBcc: c@d.example"]) {
      const response = await requestLink(config, new CookieJar(), "nodemailer", address);
      expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=EmailSignin`);
    }
    expect(smtp.mails).toHaveLength(0);
  });

  it("accepts links made before a secret rotation", async () => {
    const old = "the-old-secret-that-is-at-least-32-characters";
    const before = setup({ secret: old });
    const link = await mailedLink(before.config, "rosa@example.com");
    const rotated: AuthConfig = { ...before.config, secret: [SECRET, old] };
    expect((await openLink(rotated, new CookieJar(), link)).headers.get("location")).toBe(`${ORIGIN}/dashboard`);
  });

  it("takes the SMTP server as a URL, and answers to the Auth.js-style Email provider (id email)", async () => {
    const store = createMemoryStore();
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      trustedOrigins: [ORIGIN],
      adapter: MemoryAdapter(store),
      providers: [
        Email({
          server: `smtp://${SMTP_USER}:${SMTP_PASS}@127.0.0.1:${smtp.port}?ignoreTLS=true`,
          from: "no-reply@app.test",
        }),
      ],
    };
    const response = await requestLink(config, new CookieJar(), "email", "uma@example.com");
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/verify-request?provider=email&type=email`);
    expect(smtp.mails.at(-1)?.to).toEqual(["uma@example.com"]);
    const link = linkIn(smtp.mails.at(-1)?.mail.text);
    expect(new URL(link).pathname).toBe("/auth/callback/email");
    expect((await openLink(config, new CookieJar(), link)).headers.get("location")).toBe(`${ORIGIN}/dashboard`);
    expect(store.sessions.size).toBe(1);
  });

  it("fails fast without an adapter, naming the fix", async () => {
    const errors: Error[] = [];
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      trustedOrigins: [ORIGIN],
      logger: { error: (e) => void errors.push(e), warn: () => {}, debug: () => {} },
      providers: [Nodemailer({ server: smtpServer(smtp.port), from: "no-reply@app.test" })],
    };
    const response = await send(config, new CookieJar(), "/auth/providers");
    expect(response.status).toBe(500);
    expect(errors[0]?.message).toMatch(/needs an `adapter`/);
  });
});
