/**
 * `PasswordAccounts` of @latchkey/express over HTTP (issue 28): the built-in pages mounted as the
 * README shows them, attacked from outside. Every form checks the double-submit CSRF token before
 * anything is read or sent; hostile fields (repeated, arrays, objects, a megabyte) answer a 4xx
 * page, never a 5xx; a GET of a mailed link spends nothing; a sign-up with a taken address answers
 * exactly like one with a free address.
 */
import type { AuthConfig } from "@latchkey/core";
import { createMemoryStore, MemoryAdapter } from "@latchkey/core/memory-adapter";
import Credentials from "@latchkey/express/providers/credentials";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AccountMail,
  authorizePassword,
  ExpressAuth,
  MemoryPasswordStore,
  PasswordAccounts,
  type PasswordAccountsRouterOptions,
} from "../src/index.js";
import { Jar, listen } from "./helpers.js";

const mails: AccountMail[] = [];
const store = createMemoryStore();
const adapter = MemoryAdapter(store);
const accounts: PasswordAccountsRouterOptions = {
  passwords: new MemoryPasswordStore(),
  breached: false,
  hash: { parameters: { ln: 10 } },
  send: async (mail) => void mails.push(mail),
};
const config: AuthConfig = {
  secret: "password-accounts-express-test-secret-0123456789",
  trustHost: true,
  adapter,
  session: { strategy: "jwt", revocation: true },
  logger: { error: () => {}, warn: () => {}, debug: () => {} },
  providers: [
    Credentials({
      credentials: { email: { type: "email" }, password: { type: "password" } },
      authorize: (c) => authorizePassword(config, accounts, c),
    }),
  ],
};
let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  const application = express();
  // The proxy of these tests is loopback: a test names its client in X-Forwarded-For.
  application.set("trust proxy", "loopback");
  application.use("/auth", ExpressAuth(config));
  application.use("/account", PasswordAccounts(config, accounts));
  ({ url, close } = await listen(application));
});
afterAll(() => close());

/** Opens `path` in `jar` and returns the CSRF token of its form. */
async function formToken(jar: Jar, path: string): Promise<string> {
  const html = await (await jar.fetch(`${url}${path}`)).text();
  const token = /name="csrfToken" value="([0-9a-f]+)"/.exec(html)?.[1];
  if (!token) throw new Error(`no CSRF token on ${path}`);
  return token;
}

const newAccount = { password: "a long enough passphrase", confirm: "a long enough passphrase" };

describe("PasswordAccounts over HTTP", () => {
  it("every form refuses a post without a valid CSRF token: 403, no e-mail, no user", async () => {
    const before = { mails: mails.length, users: store.users.size };
    for (const path of ["/signup", "/check-email", "/verify", "/forgot", "/reset", "/change"]) {
      const jar = new Jar();
      await formToken(jar, `/account${path}`);
      for (const csrfToken of [undefined, "0".repeat(64)]) {
        const response = await jar.fetch(`${url}/account${path}`, {
          form: { ...(csrfToken && { csrfToken }), email: "csrf@example.com", ...newAccount },
        });
        expect(response.status, path).toBe(403);
      }
    }
    expect(mails.length).toBe(before.mails);
    expect(store.users.size).toBe(before.users);
  });

  it("hostile fields answer a 4xx page, never a 5xx: arrays, objects, a control character, a huge address", async () => {
    const jar = new Jar();
    const csrfToken = await formToken(jar, "/account/signup");
    const bodies: unknown[] = [
      {
        csrfToken,
        email: ["a@example.com", "b@example.com"],
        password: newAccount.password,
        confirm: newAccount.password,
      },
      { csrfToken, email: { $ne: null }, password: newAccount.password, confirm: newAccount.password },
      { csrfToken, email: "ctl\u0000@example.com", password: newAccount.password, confirm: newAccount.password },
      {
        csrfToken,
        email: `${"a".repeat(5000)}@example.com`,
        password: newAccount.password,
        confirm: newAccount.password,
      },
      { csrfToken, email: "ok@example.com", password: ["x"], confirm: ["x"] },
    ];
    for (const body of bodies) {
      const response = await jar.fetch(`${url}/account/signup`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(400);
      expect(await response.text()).toContain('class="error"');
    }
    expect(store.users.size).toBe(0);
  });

  it("a sign-up with a taken address answers exactly as one with a free address", async () => {
    const answers: Array<{ status: number; location: string | null; cookies: string[] }> = [];
    for (const email of ["taken@example.com", "taken@example.com", "free@example.com"]) {
      const jar = new Jar();
      const csrfToken = await formToken(jar, "/account/signup");
      const response = await jar.fetch(`${url}/account/signup`, { form: { csrfToken, email, ...newAccount } });
      answers.push({
        status: response.status,
        location: response.headers.get("location"),
        cookies: response.headers.getSetCookie().map((c) => c.split("=")[0] as string),
      });
    }
    expect(answers[1]).toEqual(answers[2]);
    expect(answers[1]).toMatchObject({ status: 303, location: "/account/check-email" });
    expect(mails.filter((m) => m.to === "taken@example.com").map((m) => m.kind)).toEqual(["verify", "taken"]);
  });

  it("a GET of the reset link shows the form and spends nothing; its post works once, then answers 400", async () => {
    const user = await adapter.getUserByEmail?.("taken@example.com");
    await adapter.updateUser?.({ id: user?.id as string, emailVerified: new Date() });
    const jar = new Jar();
    const csrfToken = await formToken(jar, "/account/forgot");
    const sent = await jar.fetch(`${url}/account/forgot`, { form: { csrfToken, email: "taken@example.com" } });
    expect(await sent.text()).toContain("Check your e-mail");
    const link = mails.at(-1)?.url as string;
    expect(mails.at(-1)?.kind).toBe("reset");
    const path = new URL(link).pathname + new URL(link).search;
    for (let i = 0; i < 3; i++) expect((await jar.fetch(`${url}${path}`)).status).toBe(200);
    const fields = Object.fromEntries(new URL(link).searchParams);
    const first = await jar.fetch(`${url}/account/reset`, { form: { csrfToken, ...fields, ...newAccount } });
    expect(await first.text()).toContain("Password changed");
    const second = await jar.fetch(`${url}/account/reset`, { form: { csrfToken, ...fields, ...newAccount } });
    expect(second.status).toBe(400);
    expect(await second.text()).toContain("not valid");
  });

  it("attack: a stranger's sign-ups with the owner's address do not spend her reset: once they spent its sign-up e-mails, her forgot-password form still mails her a link, and it resets", async () => {
    const owner = "budget-owner@example.com";
    const signUpAs = async (client: string, password: string) => {
      const jar = new Jar();
      const csrfToken = await formToken(jar, "/account/signup");
      return jar.fetch(`${url}/account/signup`, {
        headers: { "x-forwarded-for": client },
        form: { csrfToken, email: owner, password, confirm: password },
      });
    };
    // Her own sign-up is the address's first sign-up e-mail; four strangers' are the rest, the fifth is refused.
    expect((await signUpAs("198.51.100.7", newAccount.password)).status).toBe(303);
    const user = await adapter.getUserByEmail?.(owner);
    await adapter.updateUser?.({ id: user?.id as string, emailVerified: new Date() });
    const strangers = [];
    for (let i = 0; i < 5; i++)
      strangers.push((await signUpAs(`203.0.113.${i}`, `a stranger's passphrase ${i}`)).status);
    expect(strangers).toEqual([303, 303, 303, 303, 429]);
    expect(mails.filter((m) => m.to === owner).map((m) => m.kind)).toEqual([
      "verify",
      "taken",
      "taken",
      "taken",
      "taken",
    ]);

    const jar = new Jar();
    const csrfToken = await formToken(jar, "/account/forgot");
    const asked = await jar.fetch(`${url}/account/forgot`, {
      headers: { "x-forwarded-for": "198.51.100.7" },
      form: { csrfToken, email: owner },
    });
    expect(asked.status).toBe(200);
    expect(await asked.text()).toContain("Check your e-mail");
    const mail = mails.at(-1);
    expect(mail).toMatchObject({ to: owner, kind: "reset" });
    const fields = Object.fromEntries(new URL(mail?.url as string).searchParams);
    const reset = await jar.fetch(`${url}/account/reset`, { form: { csrfToken, ...fields, ...newAccount } });
    expect(await reset.text()).toContain("Password changed");
  });

  it("attack: a stranger who spends the owner's reset e-mails leaves her a link that works: her own request is answered as usual (no 429), sends nothing more, and the latest link resets", async () => {
    const owner = "reset-budget-owner@example.com";
    const user = await adapter.createUser?.({ id: "reset-budget-owner", email: owner, emailVerified: new Date() });
    expect(user?.email).toBe(owner);
    const ask = async (client: string) => {
      const jar = new Jar();
      const csrfToken = await formToken(jar, "/account/forgot");
      const response = await jar.fetch(`${url}/account/forgot`, {
        headers: { "x-forwarded-for": client },
        form: { csrfToken, email: owner },
      });
      return { jar, csrfToken, status: response.status, text: await response.text() };
    };
    // The address's five, then one more for the link's life (30 minutes); then nothing more.
    for (let i = 0; i < 8; i++) expect((await ask(`203.0.113.${i}`)).status).toBe(200);
    const sent = mails.filter((m) => m.to === owner);
    expect(sent.map((m) => m.kind)).toEqual(Array(6).fill("reset"));
    const mine = await ask("198.51.100.7");
    expect(mine.status).toBe(200);
    expect(mine.text).toContain("Check your e-mail");
    expect(mails.filter((m) => m.to === owner)).toHaveLength(6);
    const fields = Object.fromEntries(new URL(sent.at(-1)?.url as string).searchParams);
    const reset = await mine.jar.fetch(`${url}/account/reset`, {
      form: { csrfToken: mine.csrfToken, ...fields, ...newAccount },
    });
    expect(await reset.text()).toContain("Password changed");
  });
});
