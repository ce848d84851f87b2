/**
 * E-mail normalization attacks (the Auth.js advisory GHSA-v64w-49xw-qq89 class, OWASP ASVS 5.2.3
 * mail injection): an address crafted to be a list, a quoted or routed address, a look-alike "@",
 * or to carry CR/LF headers reaches at most one mailbox — checked on the SMTP envelope and the
 * headers a real SMTP server (smtp-server) received.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuthConfig } from "../../src/index.js";
import { createMemoryStore, MemoryAdapter } from "../../src/memory-adapter.js";
import Nodemailer from "../../src/providers/nodemailer.js";
import { SMTP_PASS, SMTP_USER, type SmtpFixture, startSmtp, until } from "../email/helpers.js";
import { CookieJar, call, csrfToken, SECRET } from "../helpers.js";

let smtp: SmtpFixture;
let config: AuthConfig;
beforeAll(async () => {
  smtp = await startSmtp();
  config = {
    secret: SECRET,
    trustHost: true,
    rateLimit: false,
    adapter: MemoryAdapter(createMemoryStore()),
    logger: { error() {}, warn() {}, debug() {} },
    providers: [
      Nodemailer({
        server: {
          host: "127.0.0.1",
          port: smtp.port,
          secure: false,
          ignoreTLS: true,
          auth: { user: SMTP_USER, pass: SMTP_PASS },
        },
        from: "no-reply@app.test",
      }),
    ],
  };
});
afterAll(() => smtp?.close());

const ATTACKS = [
  "victim@example.com,attacker@evil.example",
  "victim@example.com;attacker@evil.example",
  "victim@example.com attacker@evil.example",
  "victim@example.com, <attacker@evil.example>",
  "Victim <victim@example.com>, attacker@evil.example",
  '"attacker@evil.example"@example.com',
  '"victim@example.com,attacker@evil.example"@example.com',
  "victim@example.com\r\nBcc: attacker@evil.example",
  "victim@example.com\nCc: attacker@evil.example",
  "victim@example.com\r\n",
  "victim@example.com%0d%0aBcc:attacker@evil.example",
  "victim\uff20example.com",
  "victim\ufe6bexample.com",
  "victim@example.com@evil.example",
  "@evil.example:victim@example.com",
  "attacker%evil.example@example.com",
  "evil.example!attacker@example.com",
  "victim@example.com (attacker@evil.example)",
  "victim@[127.0.0.1]",
  "victim@\u0435xample.com",
  "victim@xn--xample-2of.com",
  "victim@exam\u200bple.com",
  "victim@example.com\u0000attacker@evil.example",
  "=?utf-8?q?attacker=40evil.example?=@example.com",
];

async function requestLink(email: string): Promise<Response> {
  const jar = new CookieJar();
  const token = await csrfToken(config, jar);
  return call(config, "/auth/signin/nodemailer", { jar, form: { csrfToken: token, email } });
}

describe("e-mail normalization: exactly one recipient, or none", () => {
  it("control: a plain address in odd case and spacing gets exactly one mail to its normal form", async () => {
    const before = smtp.mails.length;
    const response = await requestLink("  Victim@Example.COM ");
    expect(response.headers.get("location")).toMatch(/\/auth\/verify-request\?/);
    await until(() => smtp.mails.length === before + 1);
    const mail = smtp.mails.at(-1);
    expect(mail?.to).toEqual(["victim@example.com"]);
    expect(mail?.mail.to && !Array.isArray(mail.mail.to) ? mail.mail.to.value.map((a) => a.address) : []).toEqual([
      "victim@example.com",
    ]);
  });

  it.each(ATTACKS)("%j reaches at most one mailbox, never the attacker's", async (email) => {
    const before = smtp.mails.length;
    const response = await requestLink(email);
    expect(response.status).toBe(302);
    const location = response.headers.get("location") as string;
    if (/error=EmailSignin/.test(location)) {
      // No fixed wait for "nothing came": a control address sent afterwards must be the one and
      // only mail to arrive since (the server receives mails in order of sending).
      const control = `control-${smtp.mails.length}@example.com`;
      await requestLink(control);
      await until(() => smtp.mails.length >= before + 1);
      expect(smtp.mails.length).toBe(before + 1);
      expect(smtp.mails.at(-1)?.to).toEqual([control]);
      return;
    }
    expect(location).toMatch(/\/auth\/verify-request\?/);
    await until(() => smtp.mails.length === before + 1);
    const mail = smtp.mails.at(-1);
    expect(mail?.to).toHaveLength(1);
    expect(mail?.to[0]).not.toMatch(/evil|attacker/);
    const headerTo = mail?.mail.to && !Array.isArray(mail.mail.to) ? mail.mail.to.value : [];
    expect(headerTo).toHaveLength(1);
    expect(mail?.mail.cc).toBeUndefined();
    expect(mail?.mail.bcc).toBeUndefined();
  });
});
