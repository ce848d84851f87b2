/**
 * An address held by a record that never proved it blocks nobody's passkey sign-up, over Express
 * and the SQL adapter on PostgreSQL, MariaDB and SQLite: the registrant (`action=register`) gets a
 * fresh user without the address, the holder keeps it, and neither credential opens the other
 * record. The in-process variants, with a real OpenID Provider, are in
 * packages/core/test/security/account-pre-hijacking.test.ts.
 */
import type { AuthConfig } from "@latchkey/express";
import Passkey from "@latchkey/express/providers/passkey";
import { SqlAdapter } from "@latchkey/sql-adapter";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceAvailable } from "../../adapter-test/src/services.js";
import { SECRET } from "../../core/test/email/helpers.js";
import { Browser } from "../../core/test/oauth/support/browser.js";
import { SoftAuthenticator } from "../../core/test/webauthn/soft-authenticator.js";
import { serveAuth } from "./helpers.js";
import { type ScratchDatabase, sqlStores } from "./stores.js";

const stores = sqlStores("r3unproven");

describe.each(Object.keys(stores) as Array<keyof typeof stores>)(
  "rule: an unproven record never blocks a passkey sign-up under its address, on %s",
  (kind) => {
    let up = false;
    let store: ScratchDatabase;
    let config: AuthConfig;
    let closeApp: () => Promise<void>;
    let app = "";
    const errors: Error[] = [];

    beforeAll(async () => {
      const { port, open } = stores[kind];
      up = port === undefined || (await serviceAvailable(kind, port));
      if (!up) return;
      store = await open();
      config = {
        secret: SECRET,
        trustHost: true,
        adapter: SqlAdapter(store.db as never),
        experimental: { enableWebAuthn: true },
        logger: { error: (e) => void errors.push(e), warn() {}, debug() {} },
        callbacks: { session: ({ session, user }) => ({ ...session, user: { ...session.user, id: user?.id } }) },
        providers: [Passkey()],
      };
      ({ url: app, close: closeApp } = await serveAuth(config));
    });
    afterAll(async () => {
      if (!up) return;
      await closeApp();
      await store.close();
    });

    const csrf = async (browser: Browser) =>
      ((await (await browser.get(`${app}/auth/csrf`)).json()) as { csrfToken: string }).csrfToken;
    const whoIs = async (browser: Browser) =>
      ((await (await browser.get(`${app}/auth/session`)).json()) as { user?: { id?: string } } | null)?.user?.id;
    const errorOf = (response: Response) =>
      new URL(response.headers.get("location") ?? "", app).searchParams.get("error");
    const userRow = (id: string) =>
      store.db.selectFrom("users").select(["email", "emailVerified"]).where("id", "=", id).executeTakeFirst();

    async function options(browser: Browser, query: Record<string, string>) {
      const response = await browser.get(`${app}/auth/webauthn-options/passkey?${new URLSearchParams(query)}`);
      return { status: response.status, body: (await response.json()) as { action: string; options: never } };
    }
    async function register(browser: Browser, device: SoftAuthenticator, query: Record<string, string>) {
      const answer = await options(browser, query);
      expect(answer.status).toBe(200);
      expect(answer.body.action).toBe("register");
      return browser.post(`${app}/auth/callback/passkey`, {
        csrfToken: await csrf(browser),
        action: "register",
        data: JSON.stringify(await device.create(answer.body.options)),
      });
    }
    async function signIn(browser: Browser, device: SoftAuthenticator) {
      const answer = await options(browser, { action: "authenticate" });
      return browser.post(`${app}/auth/callback/passkey`, {
        csrfToken: await csrf(browser),
        action: "authenticate",
        data: JSON.stringify(await device.get(answer.body.options)),
      });
    }

    it("attack: a stranger's passkey sign-up under her address; her own passkey sign-up gets a fresh user, and neither passkey opens the other's record", async (t) => {
      if (!up) return t.skip();
      const address = `held-by-passkey-${kind.toLowerCase()}@example.com`;
      const stranger = new Browser();
      const strangerDevice = new SoftAuthenticator(app);
      expect(errorOf(await register(stranger, strangerDevice, { email: address }))).toBeNull();
      const strangerId = (await whoIs(stranger)) as string;

      const owner = new Browser();
      const device = new SoftAuthenticator(app);
      expect(errorOf(await register(owner, device, { email: address, action: "register" }))).toBeNull();
      const ownerId = (await whoIs(owner)) as string;
      expect(ownerId).toBeTruthy();
      expect(ownerId).not.toBe(strangerId);
      expect(await userRow(ownerId)).toMatchObject({ email: null, emailVerified: null });
      expect((await userRow(strangerId))?.email).toBe(address);

      const later = new Browser();
      expect(errorOf(await signIn(later, device))).toBeNull();
      expect(await whoIs(later)).toBe(ownerId);
      const strangerLater = new Browser();
      expect(errorOf(await signIn(strangerLater, strangerDevice))).toBeNull();
      expect(await whoIs(strangerLater)).toBe(strangerId);
      expect(errors).toEqual([]);
    });

    it("honest: an address an unverified provider's sign-in stored (emailVerified null) takes her passkey sign-up; a proven address is refused", async (t) => {
      if (!up) return t.skip();
      const address = `held-by-oauth-${kind.toLowerCase()}@example.com`;
      // What an unverified provider's first sign-in writes: a user with the address, unproven, and its account.
      const adapter = config.adapter as Required<NonNullable<AuthConfig["adapter"]>>;
      const holder = await adapter.createUser({ id: crypto.randomUUID(), email: address, emailVerified: null });
      await adapter.linkAccount({ userId: holder.id, type: "oidc", provider: "gitlab", providerAccountId: "g-1" });

      const owner = new Browser();
      const device = new SoftAuthenticator(app);
      expect(errorOf(await register(owner, device, { email: address, action: "register" }))).toBeNull();
      const ownerId = (await whoIs(owner)) as string;
      expect(ownerId).not.toBe(holder.id);
      expect(await adapter.getUserByAccount({ provider: "gitlab", providerAccountId: "g-1" })).toMatchObject({
        id: holder.id,
        email: address,
      });
      const later = new Browser();
      expect(errorOf(await signIn(later, device))).toBeNull();
      expect(await whoIs(later)).toBe(ownerId);

      await adapter.updateUser({ id: holder.id, emailVerified: new Date() });
      expect((await options(new Browser(), { email: address, action: "register" })).status).toBe(400);
      expect(errors).toEqual([]);
    });
  },
);
