// E-mail one-time codes through Auth() with the real SMTP server: the code is read from the caught
// mail and typed into the verify-request page's form, as a user would; then attacked.
import { createHash } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { AuthConfig } from "../../src/index.js";
import { createMemoryStore, MemoryAdapter, type MemoryStore } from "../../src/memory-adapter.js";
import Nodemailer from "../../src/providers/nodemailer.js";
import {
  CookieJar,
  linkIn,
  ORIGIN,
  openLink,
  requestLink,
  SECRET,
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
});

const VERIFY = `${ORIGIN}/auth/verify-request?provider=nodemailer&type=email`;
const REFUSED = `${VERIFY}&error=Verification`;
const DASHBOARD = `${ORIGIN}/dashboard`;

function setup(provider: Parameters<typeof Nodemailer>[0] = {}, overrides: Partial<AuthConfig> = {}) {
  const store: MemoryStore = createMemoryStore();
  const errors: Error[] = [];
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    trustedOrigins: [ORIGIN],
    adapter: MemoryAdapter(store),
    logger: { error: (e) => void errors.push(e), warn: () => {}, debug: () => {} },
    providers: [
      Nodemailer({ server: smtpServer(smtp.port), from: "Latchkey Test <no-reply@app.test>", code: true, ...provider }),
    ],
    ...overrides,
  };
  return { config, store, errors };
}

/** The mail last caught for `email`. */
function mailTo(email: string) {
  const found = smtp.mails.findLast((m) => m.to.includes(email));
  if (!found) throw new Error(`no mail to ${email}`);
  return found.mail;
}

/** The code in a mail's text body. */
function codeIn(text: string | undefined, length = 6): string {
  const match = new RegExp(`code: (\\d{${length}})\\b`).exec(text ?? "");
  if (!match) throw new Error(`no code in: ${text}`);
  return match[1] as string;
}

/** Asks for an e-mail in `jar` (a browser) and returns the code and link mailed. */
async function mailedCode(config: AuthConfig, email: string, jar: CookieJar): Promise<{ code: string; text: string }> {
  const response = await requestLink(config, jar, "nodemailer", email);
  expect(response.headers.get("location")).toBe(VERIFY);
  const text = mailTo(email).text ?? "";
  return { code: codeIn(text), text };
}

/** Loads the verify-request page in `jar` and reads its code form (action and CSRF token). */
async function codeForm(config: AuthConfig, jar: CookieJar): Promise<{ action: string; csrfToken: string }> {
  const page = await (await send(config, jar, VERIFY)).text();
  const action = /<form class="email-code" action="([^"]+)" method="POST">/.exec(page)?.[1];
  const csrfToken = /name="csrfToken" value="([^"]+)"/.exec(page)?.[1];
  if (!action || !csrfToken) throw new Error(`no code form on: ${page}`);
  return { action: action.replace(/&amp;/g, "&"), csrfToken };
}

/** Submits `code` through the page's form, as the browser in `jar`. */
async function submit(config: AuthConfig, jar: CookieJar, code: string, extra: Record<string, string> = {}) {
  const { action, csrfToken } = await codeForm(config, jar);
  return send(config, jar, action, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken, code, ...extra }),
  });
}

/** A code of the same length that is not `code`. */
function wrong(code: string, n = 1): string {
  return String((Number(code) + n) % 1_000_000).padStart(6, "0");
}

describe("rule: an e-mailed code signs in once, in the browser that asked for it", () => {
  it("mails a six-digit code with the link (text and HTML); typing it on the verify-request page signs in", async () => {
    const { config, store } = setup();
    const jar = new CookieJar();
    const { code, text } = await mailedCode(config, "ada@example.com", jar);
    expect(code).toMatch(/^\d{6}$/);
    expect(linkIn(text)).toContain("/auth/callback/nodemailer?");
    expect(mailTo("ada@example.com").html).toContain(`>${code}</span>`);
    const cookie = [...jar.values.keys()].find((name) => name === "authjs.email-code");
    expect(cookie).toBeDefined();
    // The cookie is sealed: neither the address nor the code can be read from it.
    expect(jar.values.get("authjs.email-code")).not.toContain("ada");

    const { action } = await codeForm(config, jar);
    expect(action).toBe(`${ORIGIN}/auth/callback/nodemailer`);
    const response = await submit(config, jar, code);
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(DASHBOARD);
    expect((await sessionOf(config, jar))?.user?.email).toBe("ada@example.com");
    expect(jar.values.has("authjs.email-code")).toBe(false);
    expect([...store.users.values()][0]?.emailVerified).toBeInstanceOf(Date);
  });

  it("stores no record from which the code can be read (keyed hashes only)", async () => {
    const { config, store } = setup();
    const { code } = await mailedCode(config, "hash@example.com", new CookieJar());
    const stored = [...store.verificationTokens.values()].map((t) => t.token);
    // link + code + alive + 5 attempts
    expect(stored).toHaveLength(8);
    const plain = [code, createHash("sha256").update(code).digest("hex")];
    for (const guess of [...plain, createHash("sha256").update(`hash@example.com${code}`).digest("hex")]) {
      expect(stored).not.toContain(guess);
    }
    for (const value of stored) expect(value).not.toContain(code);
  });

  it("gives exactly one session for 50 concurrent submissions of one code", async () => {
    // Limiter off: the race is on the adapter's atomic records, not on the rate limits.
    const { config, store } = setup({}, { rateLimit: false });
    const jar = new CookieJar();
    const { code } = await mailedCode(config, "race@example.com", jar);
    const { action, csrfToken } = await codeForm(config, jar);
    const header = jar.header();
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        send(config, new CookieJar(), action, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", cookie: header },
          body: new URLSearchParams({ csrfToken, code }),
        }),
      ),
    );
    const locations = responses.map((r) => r.headers.get("location"));
    expect(locations.filter((l) => l === DASHBOARD)).toHaveLength(1);
    expect(locations.filter((l) => l === REFUSED)).toHaveLength(49);
    expect(store.sessions.size).toBe(1);
  });

  it("voids the whole e-mail after five wrong codes: the right code and the link then fail", async () => {
    const { config, store, errors } = setup();
    const jar = new CookieJar();
    const { code, text } = await mailedCode(config, "guess@example.com", jar);
    for (let i = 1; i <= 5; i++) {
      expect((await submit(config, jar, wrong(code, i))).headers.get("location")).toBe(REFUSED);
    }
    expect((await submit(config, jar, code)).headers.get("location")).toBe(REFUSED);
    expect((await openLink(config, new CookieJar(), linkIn(text))).headers.get("location")).toBe(
      `${ORIGIN}/auth/error?error=Verification`,
    );
    expect(store.sessions.size).toBe(0);
    expect(errors.map((e) => e.message)).toContainEqual(expect.stringMatching(/no attempt left/));
    expect(errors.map((e) => e.message)).toContainEqual(expect.stringMatching(/guessed wrong too many times/));
  });

  it("counts 50 concurrent wrong guesses atomically: five are tried, the rest and then the right code are refused", async () => {
    const { config, store, errors } = setup({}, { rateLimit: false });
    const jar = new CookieJar();
    const { code } = await mailedCode(config, "burst@example.com", jar);
    const { action, csrfToken } = await codeForm(config, jar);
    const header = jar.header();
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        send(config, new CookieJar(), action, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", cookie: header },
          body: new URLSearchParams({ csrfToken, code: wrong(code, i + 1) }),
        }),
      ),
    );
    expect(responses.every((r) => r.headers.get("location") === REFUSED)).toBe(true);
    const reasons = errors.map((e) => e.message);
    expect(reasons.filter((m) => /wrong or already used code/.test(m))).toHaveLength(5);
    expect(reasons.filter((m) => /no attempt left/.test(m))).toHaveLength(45);
    expect((await submit(config, jar, code)).headers.get("location")).toBe(REFUSED);
    expect(store.sessions.size).toBe(0);
  });

  it("still accepts the right code after four wrong ones", async () => {
    const { config } = setup();
    const jar = new CookieJar();
    const { code } = await mailedCode(config, "typo@example.com", jar);
    for (let i = 1; i <= 4; i++) await submit(config, jar, wrong(code, i));
    expect((await submit(config, jar, code)).headers.get("location")).toBe(DASHBOARD);
  });

  it("refuses the code of another address, whether typed under the other's cookie or named in the form", async () => {
    const { config, store } = setup();
    const alice = new CookieJar();
    const bob = new CookieJar();
    await mailedCode(config, "alice@example.com", alice);
    const { code: bobCode } = await mailedCode(config, "bob@example.com", bob);
    expect((await submit(config, alice, bobCode)).headers.get("location")).toBe(REFUSED);
    expect((await submit(config, alice, bobCode, { email: "bob@example.com" })).headers.get("location")).toBe(REFUSED);
    expect(store.sessions.size).toBe(0);
    // Bob's own e-mail is untouched by those attempts.
    expect((await submit(config, bob, bobCode)).headers.get("location")).toBe(DASHBOARD);
    expect((await sessionOf(config, bob))?.user?.email).toBe("bob@example.com");
  });

  it("refuses a code without the cookie of the browser that asked (another browser, or a forged cookie)", async () => {
    const { config } = setup();
    const asked = new CookieJar();
    const { code } = await mailedCode(config, "elsewhere@example.com", asked);
    const other = new CookieJar();
    expect((await submit(config, other, code, { email: "elsewhere@example.com" })).headers.get("location")).toBe(
      REFUSED,
    );
    const forged = new CookieJar();
    forged.values.set("authjs.email-code", `${asked.values.get("authjs.email-code")?.slice(0, -4)}AAAA`);
    expect((await submit(config, forged, code)).headers.get("location")).toBe(REFUSED);
    // None of it spent the real browser's attempts.
    expect((await submit(config, asked, code)).headers.get("location")).toBe(DASHBOARD);
  });

  it("refuses a code after the link was used, and the link after the code was used", async () => {
    const { config, store } = setup();
    const first = new CookieJar();
    const { code, text } = await mailedCode(config, "once@example.com", first);
    expect((await openLink(config, new CookieJar(), linkIn(text))).headers.get("location")).toBe(DASHBOARD);
    expect((await submit(config, first, code)).headers.get("location")).toBe(REFUSED);

    const second = new CookieJar();
    const mailed = await mailedCode(config, "twice@example.com", second);
    expect((await submit(config, second, mailed.code)).headers.get("location")).toBe(DASHBOARD);
    expect((await openLink(config, new CookieJar(), linkIn(mailed.text))).headers.get("location")).toBe(
      `${ORIGIN}/auth/error?error=Verification`,
    );
    expect(store.sessions.size).toBe(2);
  });

  it("answers an expired code exactly as a wrong one", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = new Date("2030-01-01T00:00:00Z");
    vi.setSystemTime(start);
    const { config } = setup({ maxAge: 120 });
    const wrongJar = new CookieJar();
    const { code: first } = await mailedCode(config, "late1@example.com", wrongJar);
    const lateJar = new CookieJar();
    const { code: second } = await mailedCode(config, "late2@example.com", lateJar);
    const wrongAnswer = await submit(config, wrongJar, wrong(first));
    vi.setSystemTime(start.getTime() + 120_001);
    // The browser still holds the cookie (a client ignores Max-Age); the server refuses anyway.
    const lateAnswer = await submit(config, lateJar, second);
    expect(lateAnswer.status).toBe(wrongAnswer.status);
    expect(lateAnswer.headers.get("location")).toBe(wrongAnswer.headers.get("location"));
    expect(lateAnswer.headers.get("location")).toBe(REFUSED);
    expect(await lateAnswer.text()).toBe(await wrongAnswer.text());
  });

  it("refuses a posted code without the CSRF token", async () => {
    const { config, store } = setup();
    const jar = new CookieJar();
    const { code } = await mailedCode(config, "csrf@example.com", jar);
    const response = await send(config, jar, "/auth/callback/nodemailer", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ code }),
    });
    expect(response.headers.get("location")).toMatch(/error=MissingCSRF/);
    expect(store.sessions.size).toBe(0);
    expect((await submit(config, jar, code)).headers.get("location")).toBe(DASHBOARD);
  });

  it("refuses malformed or non-string code fields with the same answer and without spending an attempt", async () => {
    // Eleven submissions in all: above the default per-address limit of ten, which is not tested here.
    const { config } = setup({}, { rateLimit: { emailCodePerIdentifierAndIp: { max: 20, windowSeconds: 60 } } });
    const jar = new CookieJar();
    const { code } = await mailedCode(config, "fields@example.com", jar);
    const { action, csrfToken } = await codeForm(config, jar);
    const form = "application/x-www-form-urlencoded";
    for (const [type, body] of [
      [form, `csrfToken=${csrfToken}&code=12345`],
      [form, `csrfToken=${csrfToken}&code=${"9".repeat(5000)}`],
      [form, `csrfToken=${csrfToken}&code=%00${code}`],
      ["application/json", JSON.stringify({ csrfToken, code: [code] })],
      ["application/json", JSON.stringify({ csrfToken, code: { $ne: "" } })],
      ["application/json", JSON.stringify({ csrfToken, code: Number(`1${code}`) })],
    ] as const) {
      const response = await send(config, jar, action, { method: "POST", headers: { "content-type": type }, body });
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toBe(REFUSED);
    }
    // Four real attempts are still left for typos, and spaces or a dash in the code are forgiven.
    for (let i = 1; i <= 4; i++) await submit(config, jar, wrong(code, i));
    expect((await submit(config, jar, ` ${code.slice(0, 3)}-${code.slice(3)} `)).headers.get("location")).toBe(
      DASHBOARD,
    );
  });

  it("limits code submissions per address: past the limit even the right code waits", async () => {
    const { config } = setup({}, { rateLimit: { emailCodePerIdentifierAndIp: { max: 3, windowSeconds: 60 } } });
    const jar = new CookieJar();
    const { code } = await mailedCode(config, "limit@example.com", jar);
    for (let i = 0; i < 3; i++) expect((await submit(config, jar, "abc")).headers.get("location")).toBe(REFUSED);
    const limited = await submit(config, jar, code);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await sessionOf(config, jar))?.user).toBeUndefined();
  });
});

describe("rule: the code reaches the application's own sender and pages, and only where codes are on", () => {
  it("passes the code to a custom sendVerificationRequest, and it signs in", async () => {
    const sent: Array<{ code?: string; url: string }> = [];
    const { config } = setup({
      sendVerificationRequest: ({ code, url }) => void sent.push({ code, url }),
    });
    const jar = new CookieJar();
    await requestLink(config, jar, "nodemailer", "custom@example.com");
    expect(sent).toHaveLength(1);
    expect(sent[0]?.code).toMatch(/^\d{6}$/);
    expect((await submit(config, jar, sent[0]?.code as string)).headers.get("location")).toBe(DASHBOARD);
  });

  it("shows no code form for a provider without codes, and refuses a posted code there", async () => {
    const { config, store } = setup({ code: false });
    const jar = new CookieJar();
    await requestLink(config, jar, "nodemailer", "linkonly@example.com");
    expect(jar.values.has("authjs.email-code")).toBe(false);
    expect(smtp.mails.at(-1)?.mail.text).not.toMatch(/code:/);
    const page = await (await send(config, jar, VERIFY)).text();
    expect(page).not.toContain('name="code"');
    const { csrfToken } = (await (await send(config, jar, "/auth/csrf")).json()) as { csrfToken: string };
    const posted = await send(config, jar, "/auth/callback/nodemailer", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken, code: "123456" }),
    });
    expect(posted.headers.get("location")).toBe(REFUSED);
    expect(store.sessions.size).toBe(0);
  });

  it("sends the application's verify-request page the error, and the code cookie to the auth routes only", async () => {
    const { config } = setup({}, { pages: { verifyRequest: "/check-mail" } });
    const jar = new CookieJar();
    const response = await requestLink(config, jar, "nodemailer", "pages@example.com");
    expect(response.headers.get("location")).toBe("/check-mail?provider=nodemailer&type=email");
    const line = response.headers.getSetCookie().find((c) => c.startsWith("authjs.email-code="));
    expect(line).toMatch(/; Path=\/auth(;|$)/);
    expect(line).toMatch(/HttpOnly/);
    expect(line).toMatch(/SameSite=Strict/);
    expect(line).toMatch(/Max-Age=600/);
    const { csrfToken } = (await (await send(config, jar, "/auth/csrf")).json()) as { csrfToken: string };
    const posted = await send(config, jar, "/auth/callback/nodemailer", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken, code: "000000" }),
    });
    expect(posted.headers.get("location")).toBe("/check-mail?provider=nodemailer&type=email&error=Verification");
  });
});

describe("rule: with link: false the e-mail carries the code alone", () => {
  it("mails no link, shows the code form, and signs in with the code; a guessed link is refused", async () => {
    const { config, store } = setup({ link: false, code: { length: 8 } });
    const jar = new CookieJar();
    await requestLink(config, jar, "nodemailer", "codeonly@example.com");
    const mail = mailTo("codeonly@example.com");
    expect(mail.text).not.toMatch(/\/callback\//);
    expect(mail.html).not.toMatch(/\/callback\//);
    const code = codeIn(mail.text, 8);
    // code + alive + 5 attempts, and no link record
    expect(store.verificationTokens.size).toBe(7);
    const page = await (await send(config, jar, VERIFY)).text();
    expect(page).toContain('maxlength="8"');
    expect(page).toContain("A sign-in code has been sent");
    const guessed = await send(
      config,
      new CookieJar(),
      `/auth/callback/nodemailer?token=${"0".repeat(64)}&email=codeonly%40example.com`,
    );
    expect(guessed.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Verification`);
    expect((await submit(config, jar, code)).headers.get("location")).toBe(DASHBOARD);
  });

  it("refuses configurations that would mail nothing usable or too short a code, naming the option", async () => {
    for (const [provider, message] of [
      [{ link: false }, /`link: false` needs `code`/],
      [{ code: { length: 4 } }, /`code.length` must be an integer from 6 to 10/],
      [{ code: { attempts: 0 } }, /`code.attempts` must be an integer from 1 to 10/],
    ] as const) {
      const { config, errors } = setup({ code: undefined, ...provider });
      const response = await send(config, new CookieJar(), "/auth/providers");
      expect(response.status).toBe(500);
      expect(errors.map((e) => e.message)).toContainEqual(expect.stringMatching(message));
    }
  });
});
