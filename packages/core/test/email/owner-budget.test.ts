// A stranger cannot spend the owner's way in (issue 34.3), for e-mail sign-in through Auth() with
// the real SMTP server: past an address's own limit (emailPerIdentifier, reached from many
// clients), one e-mail per link life still goes out and the others are answered as usual with
// nothing sent, so the address always holds a link that works; a provider that mails only codes
// (bound to the browser that asked) cannot do that, and its owner waits out the window.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { AuthConfig } from "../../src/index.js";
import { createMemoryStore, MemoryAdapter } from "../../src/memory-adapter.js";
import Nodemailer from "../../src/providers/nodemailer.js";
import {
  CookieJar,
  linkIn,
  ORIGIN,
  openLink,
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
const OWNER = "owner@example.com";

function setup(provider: Parameters<typeof Nodemailer>[0] = {}) {
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    trustedOrigins: [ORIGIN],
    adapter: MemoryAdapter(createMemoryStore()),
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    // The client address of each request, as a trusted proxy would set it.
    clientAddress: (request) => request.headers.get("x-test-client"),
    providers: [Nodemailer({ server: smtpServer(smtp.port), from: "Latchkey Test <no-reply@app.test>", ...provider })],
  };
  return config;
}

/** Asks for a sign-in e-mail to `email` as the browser `jar` on the client `client`. */
async function ask(config: AuthConfig, jar: CookieJar, client: string, email = OWNER): Promise<Response> {
  const headers = { "x-test-client": client };
  const csrf = await send(config, jar, "/auth/csrf", { headers });
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  return send(config, jar, "/auth/signin/nodemailer", {
    method: "POST",
    headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken, email, callbackUrl: `${ORIGIN}/dashboard` }),
  });
}

/** A stranger's requests from four clients (five each: the pair limit): 20 in all. */
async function strangerFlood(config: AuthConfig): Promise<Response[]> {
  const answers: Response[] = [];
  for (let client = 0; client < 4; client++)
    for (let i = 0; i < 5; i++) answers.push(await ask(config, new CookieJar(), `203.0.113.${client}`));
  return answers;
}

describe("e-mail sign-in: a stranger cannot spend the owner's way in", () => {
  it("attack: a stranger who spends the address's sign-in e-mails from four clients leaves the owner a link that works: her request is answered as usual and sends nothing, the latest link signs her in, and once it has expired her request mails a new one", async () => {
    const config = setup();
    const start = Date.now();
    const flood = await strangerFlood(config);
    expect(flood.every((r) => r.headers.get("location") === VERIFY)).toBe(true);
    // The address's 15, and one more for the link's life; the other four sent nothing.
    expect(smtp.mails).toHaveLength(16);

    const browser = new CookieJar();
    const mine = await ask(config, browser, "198.51.100.7");
    expect(mine.status).toBe(302);
    expect(mine.headers.get("location")).toBe(VERIFY);
    expect(smtp.mails).toHaveLength(16);
    // The latest e-mail's link, asked for by the stranger, opens in her browser after a confirmation.
    const signedIn = await openLink(config, browser, linkIn(smtp.mails.at(-1)?.mail.text));
    expect(signedIn.headers.get("location")).toBe(`${ORIGIN}/dashboard`);
    expect((await sessionOf(config, browser))?.user?.email).toBe(OWNER);

    // Eleven minutes on (links live ten, the address's window fifteen): her request mails a new link.
    vi.useFakeTimers({ toFake: ["Date"], now: start + 11 * 60_000 });
    const later = new CookieJar();
    expect((await ask(config, later, "198.51.100.7")).headers.get("location")).toBe(VERIFY);
    expect(smtp.mails).toHaveLength(17);
    const opened = await send(config, later, linkIn(smtp.mails.at(-1)?.mail.text));
    expect(opened.headers.get("location")).toBe(`${ORIGIN}/dashboard`);
    expect((await sessionOf(config, later))?.user?.email).toBe(OWNER);
  });

  it("a client's own flood is still refused: past the pair limit one client is answered 429, whatever the address's budget", async () => {
    const config = setup();
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push((await ask(config, new CookieJar(), "203.0.113.50")).status);
    expect(answers).toEqual([302, 302, 302, 302, 302, 429, 429]);
    expect(smtp.mails).toHaveLength(5);
  });

  it("a provider that mails only codes (each bound to the browser that asked) cannot hand the owner a stranger's e-mail: past the address's limit she is refused until the window ends (docs/security.md, Known limits)", async () => {
    const config = setup({ code: true, link: false });
    await strangerFlood(config);
    expect(smtp.mails).toHaveLength(15);
    const mine = await ask(config, new CookieJar(), "198.51.100.7");
    expect(mine.status).toBe(429);
    expect(smtp.mails).toHaveLength(15);
  });
});
