/**
 * Magic-link sign-in by e-mail sent through [Resend](https://resend.com)'s REST API
 * (`POST https://api.resend.com/emails`, `Authorization: Bearer <apiKey>`).
 *
 * - Environment variable: `AUTH_RESEND_KEY` (the API key)
 * - `from` must be an address on a domain verified at Resend.
 *
 * @example
 * ```ts
 * import Resend from "@latchkey/core/providers/resend"
 * Resend({ from: "Acme <no-reply@acme.example>" }) // apiKey from AUTH_RESEND_KEY
 * ```
 * @see https://resend.com/docs/api-reference/emails/send-email
 * @module providers/resend
 */
import { callEmailApi, defaultMessage, requireApiKey, requireFrom } from "../lib/email/send.js";
import type { EmailConfig, EmailUserConfig, SendVerificationRequestParams } from "./email.js";

export type { EmailConfig, SendVerificationRequestParams } from "./email.js";

/**
 * Sends the default sign-in e-mail with Resend. Exported so that a custom
 * `sendVerificationRequest` can wrap it.
 *
 * @example
 * ```ts
 * Resend({ sendVerificationRequest: (params) => (audit(params.identifier), sendWithResend(params)) })
 * ```
 */
export async function sendWithResend(params: SendVerificationRequestParams): Promise<void> {
  const { provider, identifier } = params;
  const apiKey = requireApiKey(provider);
  const from = requireFrom(provider);
  const { subject, text, html } = defaultMessage(params);
  await callEmailApi(provider, "Resend", "https://api.resend.com/emails", {
    headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
    body: JSON.stringify({ from, to: [identifier], subject, html, text }),
  });
}

/**
 * Makes the Resend e-mail provider (id `resend`).
 *
 * @example
 * ```ts
 * Resend({ apiKey: "re_123", from: "no-reply@acme.example", maxAge: 15 * 60 })
 * ```
 */
export default function Resend(config: EmailUserConfig = {}): EmailConfig {
  return {
    id: "resend",
    name: "Resend",
    type: "email",
    maxAge: 10 * 60,
    sendVerificationRequest: sendWithResend,
    options: config,
  };
}
