/**
 * Account pre-hijacking (Sudhodanan & Paverd, "Pre-hijacked accounts", USENIX Security 2022): an
 * attacker attaches a credential to the victim's address before the victim ever uses the
 * application, and waits for the victim to prove the address. The rule: a credential attached to
 * an address before anyone proved control of it never opens the account of whoever proves it.
 *
 * Everything runs end to end through `Auth(new Request(...))`: passkeys from the soft
 * authenticator, magic links over the real SMTP server, OIDC against the real `oidc-provider`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AdapterUser } from "../../src/adapters.js";
import { Auth, type AuthConfig } from "../../src/index.js";
import { applyProviderOptions } from "../../src/lib/config/provider-options.js";
import { hashVerificationToken, verificationTokenKey } from "../../src/lib/flows/email/token.js";
import { oauthEmailProven } from "../../src/lib/flows/identity.js";
import { createMemoryStore, MemoryAdapter, type MemoryStore } from "../../src/memory-adapter.js";
import Apple from "../../src/providers/apple.js";
import Discord from "../../src/providers/discord.js";
import { OIDC } from "../../src/providers/generic-oidc.js";
import GitHub from "../../src/providers/github.js";
import Google from "../../src/providers/google.js";
import MicrosoftEntraID from "../../src/providers/microsoft-entra-id.js";
import Nodemailer from "../../src/providers/nodemailer.js";
import Passkey from "../../src/providers/passkey.js";
import { confirmationForm, linkIn, type SmtpFixture, smtpServer, startSmtp, until } from "../email/helpers.js";
import { Browser } from "../oauth/support/browser.js";
import { deliver, locationOf, loginAtProvider, SECRET, signInThrough, startSignIn } from "../oauth/support/flow.js";
import { startOP, type TestOP } from "../oauth/support/op.js";
import { SoftAuthenticator } from "../webauthn/soft-authenticator.js";

const APP = "http://localhost:3000";
const VICTIM = "victim@example.com";
const PROVIDERS = ["op", "op-linking", "microsoft-entra-id", "entra-linking", "apple"];

let op: TestOP;
let smtp: SmtpFixture;

beforeAll(async () => {
  const redirect_uris = PROVIDERS.map((id) => `${APP}/auth/callback/${id}`);
  op = await startOP(
    [
      { client_id: "latchkey", client_secret: "latchkey-secret", redirect_uris },
      {
        client_id: "latchkey-post",
        client_secret: "latchkey-post-secret",
        redirect_uris,
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    {
      accounts: {
        // The attacker's own provider account, naming the victim's address without proof.
        "mallory-unverified": { name: "Mallory", email: VICTIM, email_verified: false },
        // Entra-shaped: no `email`, the tenant's administrator typed `preferred_username`.
        "mallory-entra": { name: "Mallory", preferred_username: VICTIM },
        // Entra-shaped with an `email` and even an `email_verified` the tenant controls.
        "mallory-entra-email": { name: "Mallory", email: VICTIM, email_verified: true },
        // Apple with a hidden address: the id_token has none.
        "mallory-apple": { name: "Mallory" },
        // The victim's real, verified provider account.
        "victim-verified": { name: "Victor Tim", email: VICTIM },
        // The victim's own accounts at providers that prove nothing: Entra-shaped, and unverified.
        "victim-entra": { name: "Victor Tim", preferred_username: VICTIM },
        "victim-unverified": { name: "Victor Tim", email: VICTIM, email_verified: false },
      },
    },
  );
  smtp = await startSmtp();
});
afterAll(async () => {
  await op?.close();
  await smtp?.close();
});
afterEach(() => {
  smtp.mails.length = 0;
});

interface Released {
  email: string;
  provider: string;
  previousUser: AdapterUser;
  user: AdapterUser;
}

/** One application: passkeys, magic links, and OIDC providers against the real OP. */
function app(strategy: "database" | "jwt" = "database") {
  const store: MemoryStore = createMemoryStore();
  const released: Released[] = [];
  const errors: Error[] = [];
  const oidc = { issuer: op.issuer, clientId: "latchkey", clientSecret: "latchkey-secret" };
  const entraParams = { authorization: { params: { scope: "openid profile email" } } };
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter: MemoryAdapter(store),
    session: { strategy },
    experimental: { enableWebAuthn: true },
    logger: { error: (e) => void errors.push(e), warn: () => {}, debug: () => {} },
    events: { unverifiedEmailReleased: (m) => void released.push(m) },
    callbacks: {
      // The user id in the session, whatever the strategy: who the session opens.
      session: ({ session, user, token }) => ({
        ...session,
        user: { ...session.user, id: (user as AdapterUser | undefined)?.id ?? token?.sub },
      }),
    },
    providers: [
      Passkey(),
      Nodemailer({ server: smtpServer(smtp.port), from: "Latchkey Test <no-reply@app.test>" }),
      OIDC({ id: "op", name: "Test OP", ...oidc }),
      OIDC({ id: "op-linking", name: "Linking OP", ...oidc, allowDangerousEmailAccountLinking: true }),
      MicrosoftEntraID({ ...oidc, ...entraParams }),
      MicrosoftEntraID({ id: "entra-linking", ...oidc, ...entraParams, allowDangerousEmailAccountLinking: true }),
      Apple({
        issuer: op.issuer,
        clientId: "latchkey-post",
        clientSecret: "latchkey-post-secret",
        authorization: { params: { scope: "openid email profile", response_mode: "form_post" } },
        // Apple itself has no PKCE; the test OP insists on it. The callback and profile are Apple's.
        checks: ["pkce", "nonce", "state"],
      }),
    ],
  };
  const browser = () => new Browser({ [APP]: (r) => Auth(r, config) });
  const user = (id: string | undefined) => (id ? store.users.get(id) : undefined);
  return { config, store, released, errors, browser, user };
}
type App = ReturnType<typeof app>;

async function csrf(browser: Browser): Promise<string> {
  return ((await (await browser.get(`${APP}/auth/csrf`)).json()) as { csrfToken: string }).csrfToken;
}

/** Who the browser's session opens: the user id and e-mail, or null. */
async function whoIs(browser: Browser): Promise<{ id?: string; email?: string | null } | null> {
  const response = await browser.get(`${APP}/auth/session`);
  expect(response.status).toBe(200);
  const session = (await response.json()) as { user?: { id?: string; email?: string | null } } | null;
  return session?.user ?? null;
}

interface Options {
  action: string;
  options: { challenge: string; rp: { id?: string }; allowCredentials?: Array<{ id: string }> };
}

async function webauthnOptions(browser: Browser, query: Record<string, string>) {
  const response = await browser.get(`${APP}/auth/webauthn-options/passkey?${new URLSearchParams(query)}`);
  return { status: response.status, body: (await response.json()) as Options };
}

/** A passkey sign-up for `email` (the attacker's move): options, attestation, callback. */
async function passkeySignUp(browser: Browser, device: SoftAuthenticator, email: string): Promise<Response> {
  const { status, body } = await webauthnOptions(browser, { email });
  expect(status).toBe(200);
  expect(body.action).toBe("register");
  const credential = await device.create(body.options);
  return browser.post(`${APP}/auth/callback/passkey`, {
    csrfToken: await csrf(browser),
    action: "register",
    data: JSON.stringify(credential),
  });
}

/** A passkey sign-in with a discoverable credential of `device`. */
async function passkeySignIn(browser: Browser, device: SoftAuthenticator): Promise<Response> {
  const { status, body } = await webauthnOptions(browser, { action: "authenticate" });
  expect(status).toBe(200);
  const assertion = await device.get(body.options);
  return browser.post(`${APP}/auth/callback/passkey`, {
    csrfToken: await csrf(browser),
    action: "authenticate",
    data: JSON.stringify(assertion),
  });
}

/** Asks for a magic link for `email`, reads it from the SMTP server and opens it. */
async function magicLink(browser: Browser, email: string): Promise<Response> {
  const before = smtp.mails.length;
  const asked = await browser.post(`${APP}/auth/signin/nodemailer`, {
    csrfToken: await csrf(browser),
    email,
    callbackUrl: `${APP}/dashboard`,
  });
  expect(asked.status).toBe(302);
  await until(() => smtp.mails.length > before);
  const link = linkIn(smtp.mails.at(-1)?.mail.text);
  const opened = await browser.get(link);
  expect(opened.status).toBe(302);
  return opened;
}

/** An OIDC sign-in as `login` at the real OP. */
function oidcSignIn(browser: Browser, provider: string, login: string): Promise<Response> {
  return signInThrough(browser, APP, provider, { query: { login_hint: login } });
}

/** The `error` of a redirect, or null. */
function errorOf(response: Response): string | null {
  return new URL(locationOf(response), APP).searchParams.get("error");
}

/** The victim proves the address with a magic link; returns the victim's user. */
async function victimProves(a: App, victim = a.browser()): Promise<{ victim: Browser; id: string }> {
  await magicLink(victim, VICTIM);
  const me = await whoIs(victim);
  expect(me?.email).toBe(VICTIM);
  const stored = a.user(me?.id);
  expect(stored?.email).toBe(VICTIM);
  expect(stored?.emailVerified).toBeInstanceOf(Date);
  return { victim, id: me?.id as string };
}

describe("account pre-hijacking: a credential attached before the address was proved never opens the prover's account", () => {
  it.each(["database", "jwt"] as const)(
    "a passkey registered for the victim's address before the victim's magic link never opens the victim's account (%s sessions)",
    async (strategy) => {
      const a = app(strategy);
      const attacker = a.browser();
      const device = new SoftAuthenticator(APP);
      await passkeySignUp(attacker, device, VICTIM);
      const planted = await whoIs(attacker);
      const attackerId = planted?.id as string;
      expect(a.user(attackerId)).toMatchObject({ email: VICTIM, emailVerified: null });

      const { victim, id: victimId } = await victimProves(a);
      expect(victimId).not.toBe(attackerId);
      // The address left the unproven record; its passkey stays with it.
      expect(a.user(attackerId)?.email ?? null).toBeNull();
      expect(a.released).toHaveLength(1);
      expect(a.released[0]).toMatchObject({ email: VICTIM, provider: "nodemailer" });
      expect(a.released[0]?.previousUser.id).toBe(attackerId);
      expect(a.released[0]?.user.id).toBe(victimId);

      // The attacker's session from before the proof (a JWT cannot be revoked yet) opens only the old record.
      expect((await whoIs(attacker))?.id).toBe(attackerId);
      // A fresh sign-in with the planted passkey opens the old record, never the victim's.
      const again = a.browser();
      expect((await passkeySignIn(again, device)).status).toBe(302);
      const reopened = await whoIs(again);
      expect(reopened?.id).toBe(attackerId);
      expect(reopened?.email ?? null).not.toBe(VICTIM);

      // The victim keeps the account; no second release.
      await magicLink(victim, VICTIM);
      expect((await whoIs(victim))?.id).toBe(victimId);
      await magicLink(a.browser(), VICTIM);
      expect(a.released).toHaveLength(1);

      // And the attacker cannot plant a passkey on the proven account.
      const replant = await webauthnOptions(a.browser(), { email: VICTIM, action: "register" });
      expect(replant.status).toBe(400);
      expect(a.errors.filter((e) => /AdapterError|TypeError/.test(e.name))).toEqual([]);
    },
  );

  it("a passkey planted before the victim's first sign-in with a provider that verified the address never opens the victim's account", async () => {
    const a = app();
    const attacker = a.browser();
    const device = new SoftAuthenticator(APP);
    await passkeySignUp(attacker, device, VICTIM);
    const attackerId = (await whoIs(attacker))?.id as string;

    const victim = a.browser();
    expect((await oidcSignIn(victim, "op", "victim-verified")).status).toBe(302);
    const victimId = (await whoIs(victim))?.id as string;
    expect(victimId).not.toBe(attackerId);
    expect(a.user(victimId)).toMatchObject({ email: VICTIM });
    expect(a.user(victimId)?.emailVerified).toBeInstanceOf(Date);
    expect(a.released.map((r) => [r.provider, r.previousUser.id, r.user.id])).toEqual([["op", attackerId, victimId]]);

    const again = a.browser();
    await passkeySignIn(again, device);
    expect((await whoIs(again))?.id).toBe(attackerId);
    // The victim's magic link and provider sign-in both keep opening the victim's account.
    const later = a.browser();
    await magicLink(later, VICTIM);
    expect((await whoIs(later))?.id).toBe(victimId);
    await oidcSignIn(later, "op", "victim-verified");
    expect((await whoIs(later))?.id).toBe(victimId);
  });

  it.each([
    ["upper case", "VICTIM@EXAMPLE.COM"],
    ["padded, mixed case", "  Victim@Example.com "],
    ["a Cyrillic look-alike", "victim@exam\u0440le.com"],
    ["a trailing NUL", "victim@example.com\u0000"],
  ])("a passkey sign-up with %s of the address never becomes the victim's account", async (_label, spelling) => {
    const a = app();
    const attacker = a.browser();
    const device = new SoftAuthenticator(APP);
    const options = await webauthnOptions(attacker, { email: spelling });
    expect(options.status).toBeLessThan(500);
    // A control character names nobody: no registration is offered for it.
    if (/\p{Cc}/u.test(spelling)) expect(options.body.action).toBe("authenticate");
    let attackerId: string | undefined;
    if (options.body.action === "register") {
      const credential = await device.create(options.body.options);
      const signedUp = await attacker.post(`${APP}/auth/callback/passkey`, {
        csrfToken: await csrf(attacker),
        action: "register",
        data: JSON.stringify(credential),
      });
      expect(signedUp.status).toBe(302);
      attackerId = (await whoIs(attacker))?.id;
    }
    const { id: victimId } = await victimProves(a);
    expect(victimId).not.toBe(attackerId);
    if (attackerId) {
      const again = a.browser();
      await passkeySignIn(again, device);
      expect((await whoIs(again))?.id).toBe(attackerId);
    }
  });

  it.each([
    ["microsoft-entra-id", "victim-entra"],
    ["op", "victim-unverified"],
  ])(
    "a stranger's passkey sign-up under the victim's address never blocks her first sign-in with a provider that proves nothing (%s), nor opens it",
    async (provider, login) => {
      const a = app();
      const attacker = a.browser();
      const device = new SoftAuthenticator(APP);
      await passkeySignUp(attacker, device, VICTIM);
      const attackerId = (await whoIs(attacker))?.id as string;
      expect(a.user(attackerId)).toMatchObject({ email: VICTIM, emailVerified: null });

      // Her first sign-in: no OAuthAccountNotLinked, a fresh user of her own, without the address
      // (neither record proved it, so it stays where it was).
      const victim = a.browser();
      const response = await oidcSignIn(victim, provider, login);
      expect(errorOf(response)).toBeNull();
      const victimId = (await whoIs(victim))?.id as string;
      expect(victimId).toBeTruthy();
      expect(victimId).not.toBe(attackerId);
      expect(a.user(victimId)).toMatchObject({ email: null, emailVerified: null, name: "Victor Tim" });
      expect(a.user(attackerId)).toMatchObject({ email: VICTIM, emailVerified: null });
      const accounts = [...a.store.accounts.values()];
      expect(accounts.filter((x) => x.provider === provider).map((x) => x.userId)).toEqual([victimId]);

      // Every later sign-in of hers opens the same account; the planted passkey only its own record.
      const later = a.browser();
      expect(errorOf(await oidcSignIn(later, provider, login))).toBeNull();
      expect((await whoIs(later))?.id).toBe(victimId);
      const again = a.browser();
      await passkeySignIn(again, device);
      expect((await whoIs(again))?.id).toBe(attackerId);

      // Whoever proves the address later gets it on a fresh user, never the passkey's record.
      const { id: proverId } = await victimProves(a);
      expect([attackerId, victimId]).not.toContain(proverId);
      expect(a.user(attackerId)?.email ?? null).toBeNull();
      await passkeySignIn(again, device);
      expect((await whoIs(again))?.id).toBe(attackerId);
      expect(a.errors).toEqual([]);
    },
  );

  it.each([
    ["an unverified provider's sign-in", "oidc"],
    ["a stranger's passkey sign-up", "passkey"],
  ] as const)(
    "an address held by %s never blocks the owner's passkey sign-up (action=register), and neither record opens the other",
    async (_label, holderKind) => {
      const a = app();
      const holder = a.browser();
      const holderDevice = new SoftAuthenticator(APP);
      if (holderKind === "oidc") expect(errorOf(await oidcSignIn(holder, "op", "mallory-unverified"))).toBeNull();
      else await passkeySignUp(holder, holderDevice, VICTIM);
      const holderId = (await whoIs(holder))?.id as string;
      expect(a.user(holderId)).toMatchObject({ email: VICTIM, emailVerified: null });

      // The owner signs up with a passkey, as `signIn("passkey", { action: "register" })` asks.
      const victim = a.browser();
      const device = new SoftAuthenticator(APP);
      const options = await webauthnOptions(victim, { email: VICTIM, action: "register" });
      expect(options.status).toBe(200);
      expect(options.body.action).toBe("register");
      const signedUp = await victim.post(`${APP}/auth/callback/passkey`, {
        csrfToken: await csrf(victim),
        action: "register",
        data: JSON.stringify(await device.create(options.body.options)),
      });
      expect(errorOf(signedUp)).toBeNull();
      // A fresh user of her own, without the address (nobody proved it, so it stays where it was).
      const victimId = (await whoIs(victim))?.id as string;
      expect(victimId).toBeTruthy();
      expect(victimId).not.toBe(holderId);
      expect(a.user(victimId)).toMatchObject({ email: null, emailVerified: null });
      expect(a.user(holderId)).toMatchObject({ email: VICTIM, emailVerified: null });
      const authenticators = [...a.store.authenticators.values()];
      expect(authenticators.filter((x) => x.userId === victimId)).toHaveLength(1);

      // Her passkey opens her user only; the holder's credential opens the holder's record only.
      const later = a.browser();
      expect(errorOf(await passkeySignIn(later, device))).toBeNull();
      expect((await whoIs(later))?.id).toBe(victimId);
      const holderAgain = a.browser();
      if (holderKind === "oidc") expect(errorOf(await oidcSignIn(holderAgain, "op", "mallory-unverified"))).toBeNull();
      else expect(errorOf(await passkeySignIn(holderAgain, holderDevice))).toBeNull();
      expect((await whoIs(holderAgain))?.id).toBe(holderId);

      // Whoever proves the address later gets it on a third, fresh user; her passkey stays hers.
      const { id: proverId } = await victimProves(a);
      expect([holderId, victimId]).not.toContain(proverId);
      expect(errorOf(await passkeySignIn(later, device))).toBeNull();
      expect((await whoIs(later))?.id).toBe(victimId);
      expect(a.errors).toEqual([]);
    },
  );

  it("the registration options for an address an unproven record holds are those of an unknown address (nothing of the holder leaks); a proven holder is refused as before", async () => {
    const a = app();
    const holderDevice = new SoftAuthenticator(APP);
    await passkeySignUp(a.browser(), holderDevice, VICTIM);
    const held = await webauthnOptions(a.browser(), { email: VICTIM, action: "register" });
    const unknown = await webauthnOptions(a.browser(), { email: "nobody@example.com", action: "register" });
    expect([held.status, unknown.status]).toEqual([200, 200]);
    // Same fields, no display name of the holder, no credential of the holder excluded.
    const shape = (o: Options) => {
      const {
        challenge: _c,
        user,
        ...rest
      } = o.options as unknown as { challenge: string; user: Record<string, unknown> };
      return { action: o.action, rest, user: { ...user, id: typeof user.id, name: typeof user.name } };
    };
    expect(shape(held.body)).toEqual(shape(unknown.body));
    expect((held.body.options as unknown as { user: { name: string } }).user.name).toBe(VICTIM);
    expect((held.body.options as unknown as { excludeCredentials: unknown[] }).excludeCredentials).toEqual([]);
    // Without `action` the typed address still answers what it answered before (authenticate).
    expect((await webauthnOptions(a.browser(), { email: VICTIM })).body.action).toBe("authenticate");

    // Once the owner proved it (a magic link), registration under the address is refused again.
    await victimProves(a);
    const proven = await webauthnOptions(a.browser(), { email: VICTIM, action: "register" });
    expect(proven.status).toBe(400);
  });

  it("thirty proofs of a pre-hijacked address at once all open one fresh account, never the attacker's", async () => {
    const a = app();
    const attacker = a.browser();
    await passkeySignUp(attacker, new SoftAuthenticator(APP), VICTIM);
    const attackerId = (await whoIs(attacker))?.id;
    // Thirty valid links (as thirty requests would have mailed), confirmed at once in thirty tabs
    // (links no browser asked for: each shows the confirmation page, whose button signs in).
    const key = verificationTokenKey(SECRET);
    const links = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const token = `concurrent-proof-token-${i}-${Math.random().toString(36).slice(2)}`;
        await a.config.adapter?.createVerificationToken?.({
          identifier: VICTIM,
          token: hashVerificationToken(key, VICTIM, token),
          expires: new Date(Date.now() + 600_000),
        });
        return `${APP}/auth/callback/nodemailer?${new URLSearchParams({ token, email: VICTIM, callbackUrl: `${APP}/` })}`;
      }),
    );
    const tabs = links.map(() => a.browser());
    const answers = await Promise.all(
      links.map(async (link, i) => {
        const tab = tabs[i] as Browser;
        const form = confirmationForm(await (await tab.get(link)).text());
        if (!form) throw new Error("no confirmation page");
        return tab.post(form.action, form.fields);
      }),
    );
    expect(answers.map((r) => r.status)).toEqual(links.map(() => 302));
    const ids = new Set(await Promise.all(tabs.map(async (tab) => (await whoIs(tab))?.id)));
    expect(ids.size).toBe(1);
    const [victimId] = [...ids];
    expect(victimId).toBeTruthy();
    expect(victimId).not.toBe(attackerId);
    expect(a.user(victimId)).toMatchObject({ email: VICTIM });
    expect(a.user(attackerId)?.email ?? null).toBeNull();
    expect([...a.store.users.values()].filter((u) => u.email === VICTIM)).toHaveLength(1);
    expect(a.released).toHaveLength(1);
  });

  it("an OIDC profile with email_verified false creates no verified user, and the victim's magic link gets a fresh account", async () => {
    const a = app();
    const attacker = a.browser();
    expect((await oidcSignIn(attacker, "op", "mallory-unverified")).status).toBe(302);
    const attackerId = (await whoIs(attacker))?.id as string;
    expect(a.user(attackerId)).toMatchObject({ email: VICTIM, emailVerified: null });

    const { id: victimId } = await victimProves(a);
    expect(victimId).not.toBe(attackerId);
    expect(a.released.map((r) => [r.previousUser.id, r.user.id])).toEqual([[attackerId, victimId]]);

    const again = a.browser();
    await oidcSignIn(again, "op", "mallory-unverified");
    expect((await whoIs(again))?.id).toBe(attackerId);
    expect(a.user(attackerId)?.email ?? null).toBeNull();
  });

  it.each(["op-linking", "entra-linking"])(
    "an unproven profile is never linked to the victim's account by e-mail, even with allowDangerousEmailAccountLinking (%s)",
    async (provider) => {
      const a = app();
      const { id: victimId } = await victimProves(a);
      const attacker = a.browser();
      const login = provider === "op-linking" ? "mallory-unverified" : "mallory-entra-email";
      const response = await oidcSignIn(attacker, provider, login);
      expect(errorOf(response)).toBe("OAuthAccountNotLinked");
      expect(await whoIs(attacker)).toBeNull();
      expect([...a.store.accounts.values()].filter((x) => x.userId === victimId)).toEqual([]);
    },
  );

  it("a verified profile is still linked by e-mail when the provider allows it (the honest counterpart)", async () => {
    const a = app();
    const { id: victimId } = await victimProves(a);
    const other = a.browser();
    await oidcSignIn(other, "op-linking", "victim-verified");
    expect((await whoIs(other))?.id).toBe(victimId);
    expect(a.released).toEqual([]);
  });

  it.each(["mallory-entra", "mallory-entra-email"])(
    "a Microsoft Entra ID profile (%s: the address chosen by the tenant) proves nothing, and the victim's magic link gets a fresh account",
    async (login) => {
      const a = app();
      const attacker = a.browser();
      expect((await oidcSignIn(attacker, "microsoft-entra-id", login)).status).toBe(302);
      const attackerId = (await whoIs(attacker))?.id as string;
      expect(a.user(attackerId)).toMatchObject({ email: VICTIM, emailVerified: null });

      const { id: victimId } = await victimProves(a);
      expect(victimId).not.toBe(attackerId);
      const again = a.browser();
      await oidcSignIn(again, "microsoft-entra-id", login);
      expect((await whoIs(again))?.id).toBe(attackerId);
    },
  );

  it("Apple's unsigned `user` form field cannot name an address: only its name is taken", async () => {
    const a = app();
    // The victim exists and is verified; the attacker posts Apple's form field with the victim's address.
    const { id: victimId } = await victimProves(a);
    const attacker = a.browser();
    const start = await startSignIn(attacker, APP, "apple", { query: { login_hint: "mallory-apple" } });
    const answer = await loginAtProvider(attacker, locationOf(start), APP);
    expect(answer.form).toBeDefined();
    const forged = JSON.stringify({ name: { firstName: "Victor", lastName: "Tim" }, email: VICTIM, Email: VICTIM });
    const callback = await deliver(attacker, { ...answer, form: { ...answer.form, user: forged } });
    expect(callback.status).toBe(302);
    expect(a.errors).toEqual([]);
    const me = await whoIs(attacker);
    expect(me?.id).not.toBe(victimId);
    expect(me?.email ?? null).toBeNull();
    const created = a.user(me?.id);
    expect(created).toMatchObject({ name: "Victor Tim", emailVerified: null });
    expect(created?.email ?? null).toBeNull();
    expect(a.user(victimId)?.email).toBe(VICTIM);
  });
});

describe("honest flows keep working", () => {
  it("a verified OIDC user who later uses a magic link keeps the account", async () => {
    const a = app();
    const browser = a.browser();
    await oidcSignIn(browser, "op", "victim-verified");
    const first = await whoIs(browser);
    expect(a.user(first?.id)).toMatchObject({ email: VICTIM });
    expect(a.user(first?.id)?.emailVerified).toBeInstanceOf(Date);
    const other = a.browser();
    await magicLink(other, VICTIM);
    expect((await whoIs(other))?.id).toBe(first?.id);
    expect(a.released).toEqual([]);
  });

  it("a passkey added by a signed-in verified user keeps working after later magic links", async () => {
    const a = app();
    const { victim, id: victimId } = await victimProves(a);
    const device = new SoftAuthenticator(APP);
    const { status, body } = await webauthnOptions(victim, { action: "register" });
    expect(status).toBe(200);
    const credential = await device.create(body.options);
    const added = await victim.post(`${APP}/auth/callback/passkey`, {
      csrfToken: await csrf(victim),
      action: "register",
      data: JSON.stringify(credential),
    });
    expect(added.status).toBe(302);
    await magicLink(a.browser(), VICTIM);
    const later = a.browser();
    await passkeySignIn(later, device);
    expect((await whoIs(later))?.id).toBe(victimId);
    expect(a.released).toEqual([]);
  });

  it("a user made by Auth.js through a verifying provider (emailVerified null) is marked verified by that provider and keeps the account", async () => {
    const a = app();
    // As Auth.js stores an OAuth sign-up: emailVerified null, the account linked.
    await a.config.adapter?.createUser?.({ id: "legacy-1", email: VICTIM, emailVerified: null, name: "Victor Tim" });
    await a.config.adapter?.linkAccount?.({
      userId: "legacy-1",
      type: "oidc",
      provider: "op",
      providerAccountId: "victim-verified",
    });
    const browser = a.browser();
    await oidcSignIn(browser, "op", "victim-verified");
    expect((await whoIs(browser))?.id).toBe("legacy-1");
    expect(a.user("legacy-1")?.emailVerified).toBeInstanceOf(Date);
    const other = a.browser();
    await magicLink(other, VICTIM);
    expect((await whoIs(other))?.id).toBe("legacy-1");
    expect(a.released).toEqual([]);
  });
});

describe("what each sign-in proves about the address it names", () => {
  const tokens = { access_token: "at", token_type: "bearer" };
  // biome-ignore lint/suspicious/noExplicitAny: providers of several profile types in one table
  const resolved = (p: any) => applyProviderOptions(p) as Parameters<typeof oauthEmailProven>[0];
  const cases: Array<
    [string, Parameters<typeof oauthEmailProven>[0], Record<string, unknown>, string | null, boolean]
  > = [
    ["Google, email_verified true", resolved(Google()), { email: VICTIM, email_verified: true }, VICTIM, true],
    ["Google, email_verified false", resolved(Google()), { email: VICTIM, email_verified: false }, VICTIM, false],
    ["Google, no claim", resolved(Google()), { email: VICTIM }, VICTIM, false],
    ['Apple, the string "true"', resolved(Apple()), { email: VICTIM, email_verified: "true" }, VICTIM, true],
    [
      'a look-alike truthy claim ("TRUE")',
      resolved(Google()),
      { email: VICTIM, email_verified: "TRUE" },
      VICTIM,
      false,
    ],
    ["a look-alike truthy claim (1)", resolved(Google()), { email: VICTIM, email_verified: 1 }, VICTIM, false],
    [
      "the claim, for another address than the user's",
      resolved(Google()),
      { email: "mallory@example.com", email_verified: true },
      VICTIM,
      false,
    ],
    [
      "the claim, in another case",
      resolved(Google()),
      { email: "Victim@Example.COM", email_verified: true },
      VICTIM,
      true,
    ],
    [
      "Entra ID, even with a verified claim",
      resolved(MicrosoftEntraID()),
      { email: VICTIM, email_verified: true },
      VICTIM,
      false,
    ],
    [
      "Entra ID, single tenant trusted by the app",
      resolved(MicrosoftEntraID({ isEmailVerified: true })),
      { email: VICTIM },
      VICTIM,
      true,
    ],
    ["Discord, verified", resolved(Discord()), { email: VICTIM, verified: true }, VICTIM, true],
    ["Discord, unverified", resolved(Discord()), { email: VICTIM, verified: false }, VICTIM, false],
    [
      "GitHub, listed verified by /user/emails",
      resolved(GitHub()),
      { email: VICTIM, email_verified: true },
      VICTIM,
      true,
    ],
    ["GitHub, not listed verified", resolved(GitHub()), { email: VICTIM, email_verified: false }, VICTIM, false],
    ["no address at all", resolved(Google()), { email_verified: true }, null, false],
    ["an empty address", resolved(Google()), { email: "", email_verified: true }, "", false],
  ];
  it.each(cases)("%s", async (_label, provider, profile, email, proven) => {
    expect(await oauthEmailProven(provider, profile, tokens, email)).toBe(proven);
  });

  it("an isEmailVerified that throws ends the sign-in with a clear error (Configuration, as a throwing profile() does), creating nothing", async () => {
    const a = app();
    const provider = OIDC({
      id: "op",
      name: "Test OP",
      issuer: op.issuer,
      clientId: "latchkey",
      clientSecret: "latchkey-secret",
      isEmailVerified: () => {
        throw new Error("directory lookup failed");
      },
    });
    const config = { ...a.config, providers: [provider] };
    const browser = new Browser({ [APP]: (r) => Auth(r, config) });
    const response = await oidcSignIn(browser, "op", "victim-verified");
    // As for a throwing profile(): the error page with `Configuration`, the cause in the log.
    expect(locationOf(response)).toBe(`${APP}/auth/error?error=Configuration`);
    expect((a.errors.at(-1) as { type?: string } | undefined)?.type).toBe("OAuthProfileParseError");
    expect(await whoIs(browser)).toBeNull();
    expect(a.errors.at(-1)?.message).toMatch(/isEmailVerified\(\) of provider "op" threw: directory lookup failed/);
    expect(a.store.users.size).toBe(0);
  });
});
