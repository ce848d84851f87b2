/**
 * Attacks on the audit trail from outside, over Express on every store that keeps it (memory,
 * PostgreSQL, MariaDB, Redis): an attacker who tries to keep their guesses out of the trail, and
 * an operator who looks a victim up the way the application knows them.
 */

import { randomBytes } from "node:crypto";
import { type AuthConfig, ExpressAuth, listAuditEvents } from "@latchkey/express";
import Credentials from "@latchkey/express/providers/credentials";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Jar, listen } from "./helpers.js";
import { type Backend, backends } from "./stores.js";

const SECRET = "audit-attacks-test-secret-0123456789abcdef";

/** Every client of a test is its own address, so one test's per-client budgets never touch another's. */
function address(): string {
  return `10.${[...randomBytes(3)].join(".")}`;
}

describe.each(await backends("auditattack", ["memory", "postgres", "mariadb", "redis"]))(
  "audit trail attacks over Express with %s",
  (_name, up, open) => {
    let backend: Backend;
    let app = "";
    let close = async () => {};
    let config: AuthConfig;

    beforeAll(async () => {
      if (!up) return;
      backend = await open();
      config = {
        secret: SECRET,
        trustHost: true,
        adapter: backend.adapter,
        audit: { store: true },
        session: { strategy: "jwt" },
        logger: { error() {}, warn() {}, debug() {} },
        providers: [
          Credentials({
            credentials: { login: {}, password: {} },
            // Nobody signs in: every guess is wrong.
            authorize: async () => null,
          }),
        ],
      };
      const application = express();
      // The tests play many clients through X-Forwarded-For, which Express trusts from loopback only.
      application.set("trust proxy", "loopback");
      application.use("/auth", ExpressAuth(config));
      ({ url: app, close } = await listen(application));
    });

    afterAll(async () => {
      await close();
      await backend?.close();
    });

    /** A guess of `password` for `login` from `from`, as a browser would post it (with its CSRF token). */
    async function guess(from: string, login: string, password: string): Promise<number> {
      const jar = new Jar();
      const headers = { "x-forwarded-for": from };
      const { csrfToken } = (await (await jar.fetch(`${app}/auth/csrf`, { headers })).json()) as { csrfToken: string };
      const response = await jar.fetch(`${app}/auth/callback/credentials`, {
        headers,
        form: { csrfToken, login, password },
      });
      return response.status;
    }

    it("a flood of cheap failures from a client never hides the password guesses it makes next", async (t) => {
      if (!up) return t.skip();
      const from = address();
      // 250 posts without a CSRF token: nobody rate-limits them, and each is a failure to record.
      for (let batch = 0; batch < 10; batch++) {
        const statuses = await Promise.all(
          Array.from({ length: 25 }, () =>
            fetch(`${app}/auth/callback/credentials`, {
              method: "POST",
              redirect: "manual",
              headers: { "x-forwarded-for": from, "content-type": "application/x-www-form-urlencoded" },
              body: "login=x&password=y",
            }).then((r) => r.status),
          ),
        );
        expect(statuses.every((s) => s === 302)).toBe(true);
      }
      // Then the real attack: one password against each of three accounts (a spray, under every limit).
      const victims = ["ada", "grace", "linus"].map((name) => `${name}-${randomBytes(3).toString("hex")}`);
      for (const victim of victims) expect(await guess(from, victim, "Summer2026!")).toBe(302);
      for (const victim of victims) {
        const stored = await listAuditEvents(config, { identifier: victim });
        expect(stored, `the guess at ${victim}`).toMatchObject([
          { type: "signin.failed", reason: "wrong-credentials", identifier: victim, clientAddress: from },
        ]);
      }
    });

    it("the operator finds a victim's failures by the identifier as the application knows it", async (t) => {
      if (!up) return t.skip();
      const tag = randomBytes(3).toString("hex");
      // The attacker types the address in any case and width; the application stores it as the user gave it.
      expect(await guess(address(), ` ＡＤＡ.${tag}@Example.COM `, "guess")).toBe(302);
      const asTheApplicationKnowsIt = `Ada.${tag}@example.com`;
      expect(await listAuditEvents(config, { identifier: asTheApplicationKnowsIt })).toMatchObject([
        { type: "signin.failed", identifier: `ada.${tag}@example.com` },
      ]);
      // A value the trail escaped when recording is found by the value itself, and never fails the lookup.
      expect(await guess(address(), `nul\u0000${tag}`, "guess")).toBe(302);
      expect(await listAuditEvents(config, { identifier: `nul\u0000${tag}` })).toMatchObject([
        { type: "signin.failed", identifier: `nul\\u0000${tag}` },
      ]);
      await expect(listAuditEvents(config, { userId: `user\u0000${tag}` })).resolves.toEqual([]);
    });
  },
);
