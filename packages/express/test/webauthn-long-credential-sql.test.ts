/**
 * A crafted passkey registration with the longest credential id WebAuthn allows (1023 bytes), from
 * a soft authenticator making a real attestation, over Express and the SQL adapter on PostgreSQL,
 * MariaDB and SQLite. Bad input gets a refusal, never a 5xx or a half-written record (a user
 * created without its authenticator), and the operator's log says why.
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

const stores = sqlStores("longcred");

describe.each(Object.keys(stores) as Array<keyof typeof stores>)(
  "rule: a passkey whose credential id no store column holds is refused before anything is written, on %s",
  (kind) => {
    let up = false;
    let store: ScratchDatabase;
    let closeApp: () => Promise<void>;
    let app = "";
    const errors: Error[] = [];

    beforeAll(async () => {
      const { port, open } = stores[kind];
      up = port === undefined || (await serviceAvailable(kind, port));
      if (!up) return;
      store = await open();
      const config: AuthConfig = {
        secret: SECRET,
        trustHost: true,
        adapter: SqlAdapter(store.db as never),
        experimental: { enableWebAuthn: true },
        logger: { error: (e) => void errors.push(e), warn() {}, debug() {} },
        providers: [Passkey()],
      };
      ({ url: app, close: closeApp } = await serveAuth(config));
    });
    afterAll(async () => {
      if (!up) return;
      await closeApp();
      await store.close();
    });

    /** Registers `email` with a new passkey whose id is `idLength` bytes; answers the callback's response. */
    async function register(browser: Browser, email: string, idLength: number) {
      const answer = await browser.get(`${app}/auth/webauthn-options/passkey?${new URLSearchParams({ email })}`);
      expect(answer.status).toBe(200);
      const { options } = (await answer.json()) as { options: never };
      const credential = await new SoftAuthenticator(app).create(options, { idLength });
      const { csrfToken } = (await (await browser.get(`${app}/auth/csrf`)).json()) as { csrfToken: string };
      return browser.post(`${app}/auth/callback/passkey`, {
        csrfToken,
        action: "register",
        data: JSON.stringify(credential),
      });
    }
    const rows = async () => Promise.all(["users", "accounts", "authenticators"].map((table) => store.count(table)));
    const signedInAs = async (browser: Browser) =>
      ((await (await browser.get(`${app}/auth/session`)).json()) as { user?: { email?: string } } | null)?.user?.email;

    it("1023 bytes (the WebAuthn maximum): a redirect with an error, no session, no row, a log line naming the limit", async (t) => {
      if (!up) return t.skip();
      const before = await rows();
      const browser = new Browser();
      const response = await register(browser, `long-${kind.toLowerCase()}@example.com`, 1023);
      expect(response.status).toBeLessThan(400);
      expect(new URL(response.headers.get("location") ?? "", app).searchParams.get("error")).toBeTruthy();
      expect(await signedInAs(browser)).toBeUndefined();
      expect(await rows()).toEqual(before);
      expect(errors.map((e) => e.message).join("\n")).toMatch(/credential id of 1023 bytes.*at most 189/);
    });

    it("189 bytes (255 base64 characters, what every store holds) registers and signs in", async (t) => {
      if (!up) return t.skip();
      const browser = new Browser();
      const response = await register(browser, `longest-${kind.toLowerCase()}@example.com`, 189);
      expect(new URL(response.headers.get("location") ?? "", app).searchParams.get("error")).toBeNull();
      expect(await signedInAs(browser)).toBe(`longest-${kind.toLowerCase()}@example.com`);
      const stored = await store.db.selectFrom("authenticators").select("credentialID").execute();
      expect(stored.map((row) => String(row.credentialID).length)).toEqual([252]);
    });
  },
);
