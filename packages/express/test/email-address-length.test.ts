/**
 * Adversarial review (feat-attack): an e-mail address is at most 254 characters (RFC 5321
 * §4.5.3.1.3: a path is 256 octets with its angle brackets), and the SQL adapter's keys on
 * MySQL/MariaDB are VARCHAR(255). The identifier allowed 320 characters, so an anonymous sign-in
 * request for a 268-character address reached `createVerificationToken`, which MariaDB refused
 * ("Data too long"): the error page for a server fault, and an error log line per request. On
 * PostgreSQL and Redis the same request stored its records, then failed to mail an address no
 * mail server takes.
 */
import { type AuthConfig, ExpressAuth } from "@latchkey/express";
import Nodemailer from "@latchkey/express/providers/nodemailer";
import express from "express";
import { describe, expect, it } from "vitest";
import { CookieJar, SECRET } from "../../core/test/email/helpers.js";
import { fetchAt, listen } from "./helpers.js";
import { backends } from "./stores.js";

/** An address of exactly `length` characters (64-character local part, three or four labels). */
function addressOf(length: number): string {
  const domain = length - 65;
  const labels = [];
  let left = domain;
  while (left > 64) {
    labels.push("d".repeat(63));
    left -= 64;
  }
  labels.push("x".repeat(left));
  return `${"l".repeat(64)}@${labels.join(".")}`;
}

describe.each(await backends("attackmail", ["mariadb", "postgres", "redis"]))(
  "rule: an e-mail address is at most 254 characters (RFC 5321), with %s",
  (_name, up, open) => {
    it.skipIf(!up)(
      "a longer address is refused like any invalid one: its log line, no mail, nothing stored",
      async () => {
        const backend = await open();
        const errors: string[] = [];
        const mailed: string[] = [];
        const config: AuthConfig = {
          secret: SECRET,
          trustHost: true,
          adapter: backend.adapter,
          logger: { error: (e) => errors.push(String((e as Error)?.message ?? e)), warn() {}, debug() {} },
          // The message is recorded, not sent: the test SMTP server refuses long addresses on its own.
          providers: [
            Nodemailer({
              server: "smtp://127.0.0.1:1",
              from: "Latchkey <no-reply@app.test>",
              sendVerificationRequest: async ({ identifier }) => void mailed.push(identifier),
            }),
          ],
        };
        const app = express();
        app.use("/auth", ExpressAuth(config));
        const { url: origin, close } = await listen(app, "127.0.0.1");
        const ask = async (email: string) => {
          const jar = new CookieJar();
          const { csrfToken } = (await (await fetchAt(origin, jar, "/auth/csrf")).json()) as { csrfToken: string };
          const response = await fetchAt(origin, jar, "/auth/signin/nodemailer", {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ csrfToken, email }),
          });
          return { status: response.status, location: response.headers.get("location") };
        };
        try {
          const refused = await ask("not-an-address");
          const mails = mailed.length;
          const tokens = await backend.tokens();
          for (const length of [255, 268, 318]) {
            expect(addressOf(length).length).toBe(length);
            expect(await ask(addressOf(length)), `${length} characters`).toEqual(refused);
          }
          // Each refusal is the one clear log line an invalid address gets, never a store or mail failure.
          expect(errors).toEqual(Array(4).fill("The e-mail address was refused"));
          expect(mailed.length).toBe(mails);
          expect(await backend.tokens()).toBe(tokens);
          // Control: the longest deliverable address is stored and mailed.
          const longest = await ask(addressOf(254));
          expect(longest).toEqual({
            status: 302,
            location: `${origin}/auth/verify-request?provider=nodemailer&type=email`,
          });
          expect(mailed.length).toBe(mails + 1);
          expect(errors.length).toBe(4);
        } finally {
          await close();
          await backend.close();
        }
      },
    );
  },
);
