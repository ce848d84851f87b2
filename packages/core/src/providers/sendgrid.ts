/**
 * Magic-link sign-in by e-mail sent through [SendGrid](https://sendgrid.com)'s v3 Mail Send API
 * (`POST https://api.sendgrid.com/v3/mail/send`, `Authorization: Bearer <apiKey>`, answers 202).
 *
 * - Environment variable: `AUTH_SENDGRID_KEY` (the API key)
 * - `from` must be a verified sender at SendGrid.
 *
 * @example
 * ```ts
 * import SendGrid from "@latchkey/core/providers/sendgrid"
 * SendGrid({ from: "Acme <no-reply@acme.example>" }) // apiKey from AUTH_SENDGRID_KEY
 * ```
 * @see https://www.twilio.com/docs/sendgrid/api-reference/mail-send/mail-send
 * @module providers/sendgrid
 */
import { callEmailApi, defaultMessage, parseMailbox, requireApiKey, requireFrom } from "../lib/email/send.js";
import type { EmailConfig, EmailUserConfig, SendVerificationRequestParams } from "./email.js";

export type { EmailConfig, SendVerificationRequestParams } from "./email.js";

/**
 * Sends the default sign-in e-mail with SendGrid (plain text first, then HTML, as the API wants).
 *
 * @example
 * ```ts
 * SendGrid({ sendVerificationRequest: (params) => sendWithSendGrid(params) })
 * ```
 */
export async function sendWithSendGrid(params: SendVerificationRequestParams): Promise<void> {
  const { provider, identifier } = params;
  const apiKey = requireApiKey(provider);
  const from = parseMailbox(requireFrom(provider));
  const { subject, text, html } = defaultMessage(params);
  await callEmailApi(provider, "SendGrid", "https://api.sendgrid.com/v3/mail/send", {
    headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
    body: JSON.stringify({
      personalizations: [{ to: [{ email: identifier }] }],
      from,
      subject,
      content: [
        { type: "text/plain", value: text },
        { type: "text/html", value: html },
      ],
    }),
  });
}

/**
 * Makes the SendGrid e-mail provider (id `sendgrid`).
 *
 * @example
 * ```ts
 * SendGrid({ apiKey: "SG.xxx", from: "no-reply@acme.example" })
 * ```
 */
export default function SendGrid(config: EmailUserConfig = {}): EmailConfig {
  return {
    id: "sendgrid",
    name: "SendGrid",
    type: "email",
    maxAge: 10 * 60,
    sendVerificationRequest: sendWithSendGrid,
    options: config,
  };
}
