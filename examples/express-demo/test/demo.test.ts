/**
 * The built demo as `npm start` runs it, over HTTP with fetch: start-up (PORT, data folder,
 * SQLite migrated, generated secret kept), protected routes, credentials sign-in, and a session
 * that survives a restart. The browser suite (test/e2e) clicks through every sign-in method.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { serviceAvailable } from "@latchkey/adapter-test/services";
import { redisKeys } from "@latchkey/redis-adapter";
import Database from "better-sqlite3";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DemoProcess, freePort, startDemoProcess } from "./support.js";

let demo: DemoProcess;
let port: number;
beforeAll(async () => {
  port = await freePort();
  demo = await startDemoProcess({ PORT: String(port) });
});
afterAll(() => demo?.stop());

const cookiesOf = (r: Response) =>
  r.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");

async function signIn(base: string, password: string, callbackUrl = "/protected") {
  const csrf = await fetch(`${base}/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  return fetch(`${base}/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: cookiesOf(csrf), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken, email: "demo@example.com", password, callbackUrl }),
  });
}

describe("the demo", () => {
  it("listens on PORT, prints what is enabled, and creates its SQLite database and secret", async () => {
    expect(demo.url).toBe(`http://localhost:${port}`);
    const printed = demo.output();
    expect(printed).toContain("password: demo@example.com / demo-password");
    expect(printed).toMatch(
      /e-mail link and code: SMTP on 127\.0\.0\.1:\d+, messages at http:\/\/localhost:\d+\/dev\/mail/,
    );
    expect(printed).toMatch(/Demo IdP: OpenID Provider at http:\/\/127\.0\.0\.1:\d+/);
    expect(printed).toContain("GitHub: off (set AUTH_GITHUB_ID and AUTH_GITHUB_SECRET)");
    expect(printed).toContain(`storage: SQLite ${join(demo.dataDir, "demo.sqlite")}`);

    expect(statSync(join(demo.dataDir, "auth-secret")).mode & 0o777).toBe(0o600);
    const db = new Database(join(demo.dataDir, "demo.sqlite"), { readonly: true });
    try {
      const tables = db.prepare("select name from sqlite_master where type = 'table'").all() as Array<{ name: string }>;
      expect(tables.map((t) => t.name)).toEqual(
        expect.arrayContaining(["users", "accounts", "sessions", "verification_tokens", "authenticators"]),
      );
      expect(db.prepare("select name, email from users").all()).toEqual([
        { name: "Demo User", email: "demo@example.com" },
      ]);
    } finally {
      db.close();
    }
  });

  it("redirects protected pages to sign-in with the callbackUrl, and returns there after signing in", async () => {
    const protectedPage = await fetch(`${demo.url}/protected`, { redirect: "manual" });
    expect(protectedPage.headers.get("location")).toBe("/auth/signin?callbackUrl=%2Fprotected");
    const group = await fetch(`${demo.url}/account`, { redirect: "manual" });
    expect(group.headers.get("location")).toBe("/auth/signin?callbackUrl=%2Faccount");

    const signin = await signIn(demo.url, "demo-password");
    expect(signin.headers.get("location")).toBe(`${demo.url}/protected`);
    const session = cookiesOf(signin);
    expect(await (await fetch(`${demo.url}/protected`, { headers: { cookie: session } })).text()).toContain(
      "Only signed-in users see this, Demo User.",
    );
    const home = await (await fetch(`${demo.url}/`, { headers: { cookie: session } })).text();
    expect(home).toContain('with <strong id="method">password</strong>');
    const account = await (await fetch(`${demo.url}/account`, { headers: { cookie: session } })).text();
    expect(account).toContain("&#34;email&#34;: &#34;demo@example.com&#34;");
    expect(account).toContain("&#34;provider&#34;: &#34;credentials&#34;");
    // The audit trail: this sign-in is the newest of the user's security events.
    expect(account).toMatch(/<table id="activity">.*?<td>signin\.succeeded<\/td><td>password<\/td>/s);
  });

  it("refuses a wrong password", async () => {
    const signin = await signIn(demo.url, "nope");
    expect(signin.headers.get("location")).toBe(`${demo.url}/auth/signin?error=CredentialsSignin&code=credentials`);
  });

  it("keeps its secret and database across restarts, so sessions survive", async () => {
    const session = cookiesOf(await signIn(demo.url, "demo-password"));
    await demo.stop();
    demo = await startDemoProcess({}, demo.dataDir);
    const me = (await (await fetch(`${demo.url}/auth/session`, { headers: { cookie: session } })).json()) as {
      user?: { email?: string };
    };
    expect(me.user?.email).toBe("demo@example.com");
    expect(demo.output()).not.toContain("Error");
    expect(existsSync(join(demo.dataDir, "demo.sqlite"))).toBe(true);
  });
});

describe("the demo with DEMO_SESSIONS=database: the account page lists devices and signs them out", () => {
  /** Cookies by name, sent with every request: one browser. */
  class Client {
    readonly jar = new Map<string, string>();
    constructor(
      readonly base: string,
      readonly userAgent: string,
    ) {}
    async fetch(path: string, init: RequestInit & { form?: Record<string, string> } = {}) {
      const headers = new Headers(init.headers);
      headers.set("user-agent", this.userAgent);
      if (this.jar.size) headers.set("cookie", [...this.jar].map(([k, v]) => `${k}=${v}`).join("; "));
      let body = init.body;
      if (init.form) {
        headers.set("content-type", "application/x-www-form-urlencoded");
        if (!headers.has("origin")) headers.set("origin", this.base);
        body = new URLSearchParams(init.form).toString();
      }
      const response = await fetch(new URL(path, this.base), {
        ...init,
        body,
        headers,
        redirect: "manual",
        method: init.method ?? (body ? "POST" : "GET"),
      });
      for (const cookie of response.headers.getSetCookie()) {
        const [pair = ""] = cookie.split(";");
        const [name = "", value = ""] = pair.split("=");
        if (value === "" || /max-age=0/i.test(cookie)) this.jar.delete(name);
        else this.jar.set(name, value);
      }
      return response;
    }
  }
  const devicesOf = (html: string) =>
    [
      ...html.matchAll(
        /<tr><td>([^<]*)<\/td><td>[^<]*<\/td><td>[^<]*<\/td><td>(This device|<form[\s\S]*?name="id" value="([^"]+)")/g,
      ),
    ].map((m) => ({ device: m[1], current: m[2] === "This device", id: m[3] }));

  let stored: DemoProcess;
  beforeAll(async () => {
    stored = await startDemoProcess({ DEMO_SESSIONS: "database" });
  });
  afterAll(() => stored?.stop());

  /** A magic-link sign-in of the demo user, caught by the demo's own mail server. */
  async function signInByMail(userAgent: string): Promise<Client> {
    const client = new Client(stored.url, userAgent);
    const { csrfToken } = (await (await client.fetch("/auth/csrf")).json()) as { csrfToken: string };
    const before = (await (await fetch(`${stored.url}/dev/mail`)).text()).match(/class="mail"/g)?.length ?? 0;
    const sent = await client.fetch("/auth/signin/nodemailer", { form: { csrfToken, email: "demo@example.com" } });
    expect(sent.status).toBe(302);
    let page = "";
    // The mail server receives the message while the sign-in answers: read the page until it is there.
    for (let i = 0; i < 100 && (page.match(/class="mail"/g)?.length ?? 0) <= before; i++)
      page = await (await fetch(`${stored.url}/dev/mail`)).text();
    const link = /href="([^"]*\/auth\/callback\/nodemailer[^"]*)"/.exec(page)?.[1]?.replace(/&#38;/g, "&");
    expect(link).toBeTruthy();
    expect((await client.fetch(link as string)).status).toBe(302);
    return client;
  }

  it("prints that sessions are stored, with the password sign-in on", () => {
    expect(stored.output()).toContain("sessions: database (devices listed on /account)");
    expect(stored.output()).toContain("password: demo@example.com / demo-password");
  });

  it("a password sign-in gets a stored session: listed on the account page with its credentials account", async () => {
    const client = new Client(stored.url, "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0");
    const { csrfToken } = (await (await client.fetch("/auth/csrf")).json()) as { csrfToken: string };
    const signIn = await client.fetch("/auth/callback/credentials", {
      form: { csrfToken, email: "demo@example.com", password: "demo-password" },
    });
    expect(signIn.status).toBe(302);
    // A database session: the cookie is a random token, not a sealed JWT.
    expect(client.jar.get("authjs.session-token")).toMatch(/^[0-9a-f]{64}$/);
    const page = await (await client.fetch("/account")).text();
    expect(
      devicesOf(page)
        .filter((d) => d.current)
        .map((d) => d.device),
    ).toEqual(["Firefox on Linux"]);
    expect(page).toMatch(/<tr><td>password<\/td><td>credentials<\/td>/);
    expect(page).not.toContain("devices-note");
    expect(page).not.toContain("password sign-in is then off");
  });

  it("two devices: each sees both, marked; signing out the other ends its session; a cross-site post is refused", async () => {
    const laptop = await signInByMail(
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:128.0) Gecko/20100101 Firefox/128.0",
    );
    const phone = await signInByMail(
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
    );
    // The session answer a script can fetch never carries the HttpOnly session cookie's value.
    const sessionToken = laptop.jar.get("authjs.session-token") as string;
    expect(sessionToken).toBeTruthy();
    const answer = await (await laptop.fetch("/auth/session")).text();
    expect(JSON.parse(answer)).toMatchObject({ user: { email: "demo@example.com" } });
    expect(answer).not.toContain(sessionToken);
    const accountPage = await (await laptop.fetch("/account")).text();
    const listed = devicesOf(accountPage);
    // The token the page's forms post: the account functions refuse a post without it.
    const csrfToken = /name="csrfToken" value="([0-9a-f]{64})"/.exec(accountPage)?.[1] as string;
    expect(csrfToken).toBeTruthy();
    expect(listed.filter((d) => d.current).map((d) => d.device)).toEqual(["Firefox on macOS"]);
    const other = listed.find((d) => d.device === "Safari on iPhone" && !d.current);
    expect(other?.id).toMatch(/^[A-Za-z0-9_-]{32}$/);

    const forged = await laptop.fetch("/account/sessions/revoke", {
      form: { id: other?.id as string },
      headers: { origin: "https://evil.example" },
    });
    expect(forged.status).toBe(403);
    // A form on a sibling sub-domain is same-site and may pass the origin check: no token, no revocation.
    const sibling = await laptop.fetch("/account/sessions/revoke", { form: { id: other?.id as string } });
    expect(sibling.status).toBe(403);
    expect((await phone.fetch("/account")).status).toBe(200);

    const revoked = await laptop.fetch("/account/sessions/revoke", { form: { id: other?.id as string, csrfToken } });
    expect(revoked.headers.get("location")).toBe("/account");
    expect((await phone.fetch("/account")).headers.get("location")).toBe("/auth/signin?callbackUrl=%2Faccount");
    expect(devicesOf(await (await laptop.fetch("/account")).text()).some((d) => d.id === other?.id)).toBe(false);
  });
});

describe("the demo on other stores", () => {
  it("uses PostgreSQL when DATABASE_URL is set: migrates it and seeds the demo user", async () => {
    if (!(await serviceAvailable("PostgreSQL", 5432))) return;
    const database = `latchkey_demo_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    const other = await startDemoProcess({ DATABASE_URL: `postgres://postgres:pw@127.0.0.1:5432/${database}` });
    try {
      expect(other.output()).toContain(`storage: postgres://127.0.0.1:5432/${database}`); // no password printed
      expect((await signIn(other.url, "demo-password")).headers.get("location")).toBe(`${other.url}/protected`);
      const client = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database });
      await client.connect();
      const { rows } = await client.query("select name, email from users");
      await client.end();
      expect(rows).toEqual([{ name: "Demo User", email: "demo@example.com" }]);
    } finally {
      await other.stop();
      await admin.query(`DROP DATABASE ${database}`);
      await admin.end();
    }
  });

  it("uses Redis when REDIS_URL is set", async () => {
    if (!(await serviceAvailable("Redis", 6379))) return;
    const redis = new Redis("redis://127.0.0.1:6379/13");
    const other = await startDemoProcess({ REDIS_URL: "redis://127.0.0.1:6379/13" });
    try {
      expect(other.output()).toContain("storage: Redis (127.0.0.1:6379)");
      expect((await signIn(other.url, "demo-password")).headers.get("location")).toBe(`${other.url}/protected`);
      expect(await redis.get(redisKeys().userByEmail("demo@example.com"))).toBeTruthy();
      // Its adapter cannot list users: the admin page says what to use instead of failing.
      const signedIn = await signIn(other.url, "demo-password", "/account/admin");
      const adminPage = await fetch(`${other.url}/account/admin`, { headers: { cookie: cookiesOf(signedIn) } });
      expect(adminPage.status).toBe(501);
      expect(await adminPage.text()).toContain("Searching users needs an adapter that can list them");
    } finally {
      await other.stop();
      const keys = await redis.keys("latchkey:*");
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    }
  });
});
