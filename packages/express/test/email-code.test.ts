// E-mail one-time codes over Express on a real socket, with the real SMTP server, on the
// MemoryAdapter, SqlAdapter on PostgreSQL and MariaDB (fresh databases) and RedisAdapter (random prefix): the
// code is read from the caught mail and posted through the verify-request page's form.
import { randomBytes } from "node:crypto";
import { type AuthConfig, ExpressAuth } from "@latchkey/express";
import Nodemailer from "@latchkey/express/providers/nodemailer";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CookieJar, linkIn, SECRET, type SmtpFixture, smtpServer, startSmtp } from "../../core/test/email/helpers.js";
import { fetchAt, listen, openLinkAt } from "./helpers.js";
import { type Backend, backends } from "./stores.js";

const stores = await backends("code", ["memory", "postgres", "mariadb", "redis"]);

let smtp: SmtpFixture;
beforeAll(async () => {
  smtp = await startSmtp();
});
afterAll(() => smtp.close());

describe.each(stores)("rule: an e-mailed code signs in once, over Express with %s", (_name, up, open) => {
  let backend: Backend;
  let close: () => Promise<void>;
  let origin: string;

  beforeAll(async () => {
    if (!up) return;
    backend = await open();
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter: backend.adapter,
      logger: { error: () => {}, warn: () => {}, debug: () => {} },
      // All 50 concurrent submissions come from one client: the per-client limits would refuse most
      // of them before they reach the adapter, and it is the adapter's race that is tested here.
      rateLimit: {
        emailCodePerIdentifierAndIp: { max: 100, windowSeconds: 60 },
        emailCodePerIdentifier: { max: 100, windowSeconds: 60 },
        emailCodePerIp: { max: 200, windowSeconds: 60 },
      },
      providers: [Nodemailer({ server: smtpServer(smtp.port), from: "Latchkey <no-reply@app.test>", code: true })],
    };
    const app = express();
    app.use("/auth", ExpressAuth(config));
    ({ url: origin, close } = await listen(app, "127.0.0.1"));
  });
  afterAll(async () => {
    if (!up) return;
    await close();
    await backend.close();
  });

  const request = (jar: CookieJar, url: string, init?: RequestInit) => fetchAt(origin, jar, url, init);

  /** Asks for an e-mail as the browser `jar`; returns the mailed code and link. */
  async function ask(jar: CookieJar, email: string): Promise<{ code: string; link: string }> {
    const { csrfToken } = (await (await request(jar, "/auth/csrf")).json()) as { csrfToken: string };
    const response = await request(jar, "/auth/signin/nodemailer", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken, email, callbackUrl: `${origin}/dashboard` }),
    });
    expect(response.headers.get("location")).toBe(`${origin}/auth/verify-request?provider=nodemailer&type=email`);
    const text = smtp.mails.findLast((m) => m.to.includes(email))?.mail.text ?? "";
    const code = /code: (\d{6})\b/.exec(text)?.[1];
    if (!code) throw new Error(`no code in: ${text}`);
    return { code, link: linkIn(text) };
  }

  /** The verify-request page's form, as the browser `jar` sees it. */
  async function form(jar: CookieJar): Promise<{ action: string; csrfToken: string }> {
    const page = await (await request(jar, "/auth/verify-request?provider=nodemailer&type=email")).text();
    const action = /<form class="email-code" action="([^"]+)"/.exec(page)?.[1];
    const csrfToken = /name="csrfToken" value="([^"]+)"/.exec(page)?.[1];
    if (!action || !csrfToken) throw new Error("no code form on the verify-request page");
    return { action, csrfToken };
  }

  async function submit(jar: CookieJar, code: string): Promise<string | null> {
    const { action, csrfToken } = await form(jar);
    const response = await request(jar, action, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken, code }),
    });
    return response.headers.get("location");
  }

  const address = (name: string) => `${name}-${randomBytes(3).toString("hex")}@example.com`;
  const refused = () => `${origin}/auth/verify-request?provider=nodemailer&type=email&error=Verification`;

  it.skipIf(!up)("signs in with the six-digit code read from the mail", async () => {
    const jar = new CookieJar();
    const email = address("ada");
    const { code } = await ask(jar, email);
    expect(await submit(jar, code)).toBe(`${origin}/dashboard`);
    const session = (await (await request(jar, "/auth/session")).json()) as { user?: { email?: string } };
    expect(session.user?.email).toBe(email);
  });

  it.skipIf(!up)("turns 50 concurrent submissions of one code into exactly one session", async () => {
    const jar = new CookieJar();
    const { code } = await ask(jar, address("race"));
    const { action, csrfToken } = await form(jar);
    const before = await backend.sessions();
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        fetch(new URL(action, origin), {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header() },
          body: new URLSearchParams({ csrfToken, code }),
        }),
      ),
    );
    const locations = responses.map((r) => r.headers.get("location"));
    expect(locations.filter((l) => l === `${origin}/dashboard`)).toHaveLength(1);
    expect(locations.filter((l) => l === refused())).toHaveLength(49);
    expect(await backend.sessions()).toBe(before + 1);
  });

  it.skipIf(!up)("voids code and link after five wrong codes", async () => {
    const jar = new CookieJar();
    const { code, link } = await ask(jar, address("guess"));
    for (let i = 1; i <= 5; i++) {
      expect(await submit(jar, String((Number(code) + i) % 1_000_000).padStart(6, "0"))).toBe(refused());
    }
    expect(await submit(jar, code)).toBe(refused());
    expect((await openLinkAt(origin, new CookieJar(), link)).headers.get("location")).toBe(
      `${origin}/auth/error?error=Verification`,
    );
  });

  it.skipIf(!up)("refuses another address's code, and a code after the link was used", async () => {
    const alice = new CookieJar();
    const bob = new CookieJar();
    await ask(alice, address("alice"));
    const bobs = await ask(bob, address("bob"));
    expect(await submit(alice, bobs.code)).toBe(refused());
    expect((await openLinkAt(origin, new CookieJar(), bobs.link)).headers.get("location")).toBe(`${origin}/dashboard`);
    expect(await submit(bob, bobs.code)).toBe(refused());
  });
});
