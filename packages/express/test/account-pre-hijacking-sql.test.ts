/**
 * Account pre-hijacking over Express and the SQL adapter on PostgreSQL and MariaDB: an attacker
 * plants a passkey on the victim's address, then thirty proofs of the address (magic links) arrive
 * at once. The store's unique e-mail and its transactions must give one fresh user to the prover,
 * leave the passkey on the old record, and answer every request without a 5xx. The in-process
 * variants of the rule are in packages/core/test/security/account-pre-hijacking.test.ts.
 */
import { randomBytes } from "node:crypto";
import type { AuthConfig } from "@latchkey/express";
import Nodemailer from "@latchkey/express/providers/nodemailer";
import Passkey from "@latchkey/express/providers/passkey";
import { SqlAdapter } from "@latchkey/sql-adapter";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceAvailable } from "../../adapter-test/src/services.js";
import { hashVerificationToken, verificationTokenKey } from "../../core/src/lib/flows/email/token.js";
import { confirmationForm, SECRET, type SmtpFixture, smtpServer, startSmtp } from "../../core/test/email/helpers.js";
import { Browser } from "../../core/test/oauth/support/browser.js";
import { SoftAuthenticator } from "../../core/test/webauthn/soft-authenticator.js";
import { serveAuth } from "./helpers.js";
import { type ScratchDatabase, scratchMariaDb, scratchPostgres } from "./stores.js";

const VICTIM = "victim@example.com";
const stores: Record<"postgres" | "mariadb", { port: number; open(): Promise<ScratchDatabase> }> = {
  postgres: { port: 5432, open: () => scratchPostgres("prehijack", 10) },
  mariadb: { port: 3306, open: () => scratchMariaDb("prehijack", 10) },
};

let smtp: SmtpFixture;
beforeAll(async () => {
  smtp = await startSmtp();
});
afterAll(() => smtp?.close());

describe.each(Object.keys(stores) as Array<keyof typeof stores>)("account pre-hijacking on %s", (kind) => {
  let up = false;
  let store: ScratchDatabase;
  let closeApp: () => Promise<void>;
  let app = "";
  let config: AuthConfig;
  const released: Array<{ previousUser: { id: string }; user: { id: string } }> = [];

  beforeAll(async () => {
    up = await serviceAvailable(kind === "postgres" ? "PostgreSQL" : "MariaDB", stores[kind].port);
    if (!up) return;
    store = await stores[kind].open();
    config = {
      secret: SECRET,
      trustHost: true,
      adapter: SqlAdapter(store.db as never),
      experimental: { enableWebAuthn: true },
      logger: { error() {}, warn() {}, debug() {} },
      events: { unverifiedEmailReleased: (m) => void released.push(m) },
      callbacks: { session: ({ session, user }) => ({ ...session, user: { ...session.user, id: user?.id } }) },
      providers: [Passkey(), Nodemailer({ server: smtpServer(smtp.port), from: "Latchkey <no-reply@app.test>" })],
    };
    ({ url: app, close: closeApp } = await serveAuth(config));
  });
  afterAll(async () => {
    if (!up) return;
    await closeApp();
    await store.close();
  });

  async function csrf(browser: Browser): Promise<string> {
    return ((await (await browser.get(`${app}/auth/csrf`)).json()) as { csrfToken: string }).csrfToken;
  }
  async function whoIs(browser: Browser): Promise<{ id?: string; email?: string | null } | undefined> {
    const response = await browser.get(`${app}/auth/session`);
    expect(response.status).toBe(200);
    return ((await response.json()) as { user?: { id?: string; email?: string | null } } | null)?.user;
  }
  async function passkey(browser: Browser, device: SoftAuthenticator, query: Record<string, string>) {
    const answer = await browser.get(`${app}/auth/webauthn-options/passkey?${new URLSearchParams(query)}`);
    expect(answer.status).toBe(200);
    const { action, options } = (await answer.json()) as { action: string; options: never };
    const data = action === "register" ? await device.create(options) : await device.get(options);
    const response = await browser.post(`${app}/auth/callback/passkey`, {
      csrfToken: await csrf(browser),
      action,
      data: JSON.stringify(data),
    });
    expect(response.status).toBe(302);
  }

  it("thirty magic-link proofs at once after a planted passkey: one fresh user, the passkey opens only the old record, no 5xx", async (t) => {
    if (!up) return t.skip();
    const attacker = new Browser();
    const device = new SoftAuthenticator(app);
    await passkey(attacker, device, { email: VICTIM });
    const attackerId = (await whoIs(attacker))?.id;
    expect(attackerId).toBeTruthy();

    // The secret the application was configured with when it started (SECRET changes per test).
    const key = verificationTokenKey(String(config.secret));
    const links = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const token = `${kind}-proof-${i}-${randomBytes(8).toString("hex")}`;
        await config.adapter?.createVerificationToken?.({
          identifier: VICTIM,
          token: hashVerificationToken(key, VICTIM, token),
          expires: new Date(Date.now() + 600_000),
        });
        return `${app}/auth/callback/nodemailer?${new URLSearchParams({ token, email: VICTIM, callbackUrl: `${app}/` })}`;
      }),
    );
    const tabs = links.map(() => new Browser());
    // Links no browser asked for: each tab shows the confirmation page, whose button signs in.
    const answers = await Promise.all(
      links.map(async (link, i) => {
        const tab = tabs[i] as Browser;
        const form = confirmationForm(await (await tab.get(link)).text());
        if (!form) throw new Error("no confirmation page");
        return tab.post(form.action, form.fields);
      }),
    );
    expect(answers.map((r) => r.status)).toEqual(links.map(() => 302));
    expect(answers.map((r) => new URL(r.headers.get("location") ?? "", app).searchParams.get("error"))).toEqual(
      links.map(() => null),
    );
    const ids = new Set(await Promise.all(tabs.map(async (tab) => (await whoIs(tab))?.id)));
    expect(ids.size).toBe(1);
    const [victimId] = [...ids];
    expect(victimId).toBeTruthy();
    expect(victimId).not.toBe(attackerId);

    const rows = await store.db.selectFrom("users").select(["id", "email", "emailVerified"]).execute();
    expect(rows.filter((r) => r.email === VICTIM).map((r) => r.id)).toEqual([victimId]);
    expect(rows.find((r) => r.id === attackerId)?.email ?? null).toBeNull();
    expect(rows.find((r) => r.id === victimId)?.emailVerified).toBeTruthy();
    expect(released.map((r) => [r.previousUser.id, r.user.id])).toEqual([[attackerId, victimId]]);

    const again = new Browser();
    await passkey(again, device, { action: "authenticate" });
    expect((await whoIs(again))?.id).toBe(attackerId);
  });
});
