/**
 * Magic-link sign-in by e-mail over SMTP, sent with [nodemailer](https://nodemailer.com)
 * (an optional peer dependency: `npm install nodemailer`).
 *
 * The default message is the themed HTML + plain-text e-mail of `emailMessage`; a send the server
 * refuses, or accepts for no recipient, fails the sign-in with `error=EmailSignin`.
 *
 * @example
 * ```ts
 * import Nodemailer from "@latchkey/core/providers/nodemailer"
 * Nodemailer({
 *   server: "smtp://user:password@smtp.acme.example:587", // or { host, port, secure, auth: { user, pass } }
 *   from: "Acme <no-reply@acme.example>",
 *   maxAge: 15 * 60,
 * })
 * ```
 * @module providers/nodemailer
 */

import { smtpSender } from "../lib/base/symbols.js";
import { sendWithNodemailer } from "../lib/email/smtp.js";
import type { EmailConfig, EmailUserConfig, SmtpServerOptions } from "./email.js";

export type { EmailConfig, SendVerificationRequestParams } from "./email.js";

/** Options of the Nodemailer provider: `server` and `from` are needed. */
export interface NodemailerUserConfig extends EmailUserConfig {
  server?: string | SmtpServerOptions;
  from?: string;
}

/**
 * Makes the SMTP e-mail provider (id `nodemailer`).
 *
 * @example
 * ```ts
 * Nodemailer({ server: { host: "127.0.0.1", port: 2525, auth: { user: "u", pass: "p" } }, from: "no-reply@acme.example" })
 * ```
 */
export default function Nodemailer(config: NodemailerUserConfig = {}): EmailConfig {
  return {
    id: "nodemailer",
    name: "Nodemailer",
    type: "email",
    maxAge: 10 * 60,
    sendVerificationRequest: (params) => sendWithNodemailer(params),
    [smtpSender]: sendWithNodemailer,
    options: config,
  };
}
