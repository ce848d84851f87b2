// E-mail magic-link sign-in over Express on a real socket, with a real SMTP server, against the
// MemoryAdapter, SqlAdapter on PostgreSQL (fresh random database) and RedisAdapter (random prefix).
import { randomBytes } from "node:crypto";
import { type AuthConfig, ExpressAuth } from "@latchkey/express";
import Nodemailer from "@latchkey/express/providers/nodemailer";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CookieJar, linkIn, SECRET, type SmtpFixture, smtpServer, startSmtp } from "../../core/test/email/helpers.js";
import { fetchAt, listen, openLinkAt } from "./helpers.js";
import { type Backend, backends } from "./stores.js";

const stores = await backends("email", ["memory", "postgres", "redis"]);

let smtp: SmtpFixture;
beforeAll(async () => {
  smtp = await startSmtp();
});
afterAll(() => smtp.close());

describe.each(stores)("e-mail sign-in over Express with %s", (_name, up, open) => {
  let store: Backend;
  let close: () => Promise<void>;
  let origin: string;
  let config: AuthConfig;
  const signOuts: Array<{ reason?: string }> = [];

  beforeAll(async () => {
    if (!up) return;
    store = await open();
    config = {
      secret: SECRET,
      trustHost: true,
      adapter: store.adapter,
      logger: { error: () => {}, warn: () => {}, debug: () => {} },
      providers: [Nodemailer({ server: smtpServer(smtp.port), from: "Latchkey <no-reply@app.test>" })],
      // Small, so that the attacker test below needs few sign-ins; the other tests stay under it.
      session: { maxPerUser: 3 },
      // One address signs in ten times in a row there: the per-address mail limit is another rule.
      rateLimit: false,
      events: { signOut: ({ reason }) => void signOuts.push({ reason }) },
    };
    const app = express();
    app.use("/auth", ExpressAuth(config));
    app.get("/dashboard", (_req, res) => void res.send("dashboard"));
    ({ url: origin, close } = await listen(app, "127.0.0.1"));
  });
  afterAll(async () => {
    if (!up) return;
    await close();
    await store.close();
  });

  const get = (jar: CookieJar, url: string, init?: RequestInit) => fetchAt(origin, jar, url, init);

  async function mailedLink(email: string): Promise<string> {
    const jar = new CookieJar();
    const { csrfToken } = (await (await get(jar, "/auth/csrf")).json()) as { csrfToken: string };
    const before = smtp.mails.length;
    const response = await get(jar, "/auth/signin/nodemailer", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken, email, callbackUrl: `${origin}/dashboard` }),
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(`${origin}/auth/verify-request?provider=nodemailer&type=email`);
    expect(smtp.mails.length).toBe(before + 1);
    const received = smtp.mails.at(-1);
    expect(received?.to).toEqual([email.trim().toLowerCase()]);
    return linkIn(received?.mail.text);
  }

  it.skipIf(!up)("mails a link that signs in once, on the callbackUrl, with a database session", async () => {
    const email = `ada-${randomBytes(3).toString("hex")}@example.com`;
    const link = await mailedLink(email);
    expect(new URL(link).origin).toBe(origin);
    const sessionsBefore = await store.sessions();
    const browser = new CookieJar();
    const click = await openLinkAt(origin, browser, link);
    expect(click.status).toBe(302);
    expect(click.headers.get("location")).toBe(`${origin}/dashboard`);
    const session = (await (await get(browser, "/auth/session")).json()) as { user?: { email?: string } };
    expect(session.user?.email).toBe(email);
    expect(await store.sessions()).toBe(sessionsBefore + 1);
    const again = await openLinkAt(origin, new CookieJar(), link);
    expect(again.headers.get("location")).toBe(`${origin}/auth/error?error=Verification`);
  });

  // Attacker review (feat-growth): sessions per user were unbounded, so one account signing in
  // over and over grew the sessions table / keys (and, on Redis, the work of each sign-in).
  it.skipIf(!up)(
    "rule: 10 sign-ins of one address with session.maxPerUser 3 leave 3 sessions, the newest; each ended one is a signOut with reason session-limit",
    async () => {
      const email = `loop-${randomBytes(3).toString("hex")}@example.com`;
      const sessionsBefore = await store.sessions();
      const endedBefore = signOuts.length;
      const browsers: CookieJar[] = [];
      for (let i = 0; i < 10; i++) {
        const browser = new CookieJar();
        expect((await openLinkAt(origin, browser, await mailedLink(email))).status).toBe(302);
        browsers.push(browser);
      }
      expect(await store.sessions()).toBe(sessionsBefore + 3);
      expect(signOuts.slice(endedBefore)).toEqual(Array.from({ length: 7 }, () => ({ reason: "session-limit" })));
      const emails = await Promise.all(
        browsers.map(
          async (b) =>
            ((await (await get(b, "/auth/session")).json()) as { user?: { email?: string } } | null)?.user?.email,
        ),
      );
      expect(emails).toEqual([...Array.from({ length: 7 }, () => undefined), email, email, email]);
    },
  );

  it.skipIf(!up)("refuses the token with another address", async () => {
    const link = new URL(await mailedLink(`bob-${randomBytes(3).toString("hex")}@example.com`));
    link.searchParams.set("email", "mallory@example.com");
    expect((await openLinkAt(origin, new CookieJar(), link.href)).headers.get("location")).toBe(
      `${origin}/auth/error?error=Verification`,
    );
  });

  it.skipIf(!up)("turns 50 concurrent clicks on one link into exactly one session", async () => {
    const link = await mailedLink(`carol-${randomBytes(3).toString("hex")}@example.com`);
    const before = await store.sessions();
    const responses = await Promise.all(Array.from({ length: 50 }, () => openLinkAt(origin, new CookieJar(), link)));
    const locations = responses.map((r) => r.headers.get("location"));
    expect(locations.filter((l) => l === `${origin}/dashboard`)).toHaveLength(1);
    expect(locations.filter((l) => l === `${origin}/auth/error?error=Verification`)).toHaveLength(49);
    expect(await store.sessions()).toBe(before + 1);
  });

  it.skipIf(!up)("refuses a hostile address before any mail is sent, storing nothing", async () => {
    const tokensBefore = await store.tokens();
    const jar = new CookieJar();
    const { csrfToken } = (await (await get(jar, "/auth/csrf")).json()) as { csrfToken: string };
    const before = smtp.mails.length;
    const response = await get(jar, "/auth/signin/nodemailer", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken, email: "victim@example.com\r\nBcc: eve@evil.test" }),
    });
    expect(response.headers.get("location")).toBe(`${origin}/auth/signin?error=EmailSignin`);
    expect(smtp.mails.length).toBe(before);
    expect(await store.tokens()).toBe(tokensBefore);
  });
});
