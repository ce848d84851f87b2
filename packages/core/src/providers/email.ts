/**
 * E-mail (magic link) sign-in: the types every e-mail provider shares, the strict address
 * normalisation and the default message. The providers themselves are `nodemailer` (SMTP),
 * `resend`, `sendgrid`, `postmark` and `mailgun`; this module's default export is the SMTP
 * provider under the id `email`, as `@auth/core/providers/email` has it.
 *
 * How a sign-in goes: the address is normalised, the `signIn` callback is asked (with
 * `email.verificationRequest: true`), a 256-bit token is made and only its keyed hash is stored
 * (with its expiry, `maxAge`, 10 minutes by default), the link `/auth/callback/<id>?token&email`
 * is mailed, and the user lands on the verify-request page. Following the link consumes the token
 * once and starts the session. An adapter is required.
 *
 * With `code: true` the e-mail also carries a six-digit code (or only the code, with `link: false`),
 * typed on the verify-request page, which posts it to `/auth/callback/<id>`; see `code`.
 *
 * @example
 * ```ts
 * import Email from "@latchkey/core/providers/email"
 * Email({ server: process.env.EMAIL_SERVER, from: "Acme <no-reply@acme.example>" })
 * ```
 * @module providers/email
 */

import { smtpSender } from "../lib/base/symbols.js";
import { sendWithNodemailer } from "../lib/email/smtp.js";
import type { EmailConfig, EmailUserConfig } from "../shapes/email.js";

export { InvalidEmailAddress, normalizeEmailIdentifier } from "../lib/email/identifier.js";
export { type EmailMessage, emailMessage } from "../lib/email/message.js";
export type {
  EmailConfig,
  EmailUserConfig,
  SendVerificationRequestParams,
  SmtpServerOptions,
} from "../shapes/email.js";

/**
 * The SMTP provider under the id `email` (the same as `Nodemailer` with another id), for
 * configurations written for `@auth/core/providers/email`.
 *
 * @example
 * ```ts
 * Email({ server: { host: "smtp.example", port: 587, auth: { user, pass } }, from: "no-reply@acme.example" })
 * ```
 */
export default function Email(config: EmailUserConfig = {}): EmailConfig {
  return {
    id: "email",
    name: "Email",
    type: "email",
    maxAge: 10 * 60,
    sendVerificationRequest: (params) => sendWithNodemailer(params),
    [smtpSender]: sendWithNodemailer,
    options: config,
  };
}
