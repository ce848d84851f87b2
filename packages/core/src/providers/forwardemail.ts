/**
 * Magic-link sign-in by e-mail sent through [Forward Email](https://forwardemail.net)'s REST API
 * (`POST https://api.forwardemail.net/v1/emails`, HTTP Basic with the API token as the user name
 * and no password).
 *
 * - Environment variable: `AUTH_FORWARDEMAIL_KEY` (the API token)
 * - `from` must be an address of a domain set up at Forward Email.
 *
 * @example
 * ```ts
 * import ForwardEmail from "@latchkey/core/providers/forwardemail"
 * ForwardEmail({ from: "Acme <no-reply@acme.example>" }) // apiKey from AUTH_FORWARDEMAIL_KEY
 * ```
 * @see https://forwardemail.net/en/email-api#outbound-emails
 * @module providers/forwardemail
 */
import { toBase64, utf8 } from "#platform";
import { callEmailApi, defaultMessage, requireApiKey, requireFrom } from "../lib/email/send.js";
import type { EmailConfig, EmailUserConfig, SendVerificationRequestParams } from "./email.js";

export type { EmailConfig, SendVerificationRequestParams } from "./email.js";

/**
 * Sends the default sign-in e-mail with Forward Email. Exported so that a custom
 * `sendVerificationRequest` can wrap it.
 *
 * @example
 * ```ts
 * ForwardEmail({ sendVerificationRequest: (params) => sendWithForwardEmail(params) })
 * ```
 */
export async function sendWithForwardEmail(params: SendVerificationRequestParams): Promise<void> {
  const { provider, identifier } = params;
  const apiKey = requireApiKey(provider);
  const from = requireFrom(provider);
  const { subject, text, html } = defaultMessage(params);
  await callEmailApi(provider, "Forward Email", "https://api.forwardemail.net/v1/emails", {
    headers: { Authorization: `Basic ${toBase64(utf8(`${apiKey}:`))}`, "Content-Type": "application/json" },
    body: JSON.stringify({ from, to: identifier, subject, html, text }),
  });
}

/**
 * Makes the Forward Email e-mail provider (id `forwardemail`).
 *
 * @example
 * ```ts
 * ForwardEmail({ apiKey: "token", from: "no-reply@acme.example", maxAge: 15 * 60 })
 * ```
 */
export default function ForwardEmail(config: EmailUserConfig = {}): EmailConfig {
  return {
    id: "forwardemail",
    name: "Forward Email",
    type: "email",
    maxAge: 10 * 60,
    sendVerificationRequest: sendWithForwardEmail,
    options: config,
  };
}
