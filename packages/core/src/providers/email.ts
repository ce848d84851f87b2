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
import { sendWithNodemailer } from "../lib/flows/email/send.js";
import type { customFetch } from "../lib/symbols.js";
import type { Awaitable, Theme } from "../types.js";

export { InvalidEmailAddress, normalizeEmailIdentifier } from "../lib/flows/email/identifier.js";
export { type EmailMessage, emailMessage } from "../lib/flows/email/message.js";

/** What `sendVerificationRequest` receives. */
export interface SendVerificationRequestParams {
  /** The normalised e-mail address: the one recipient. */
  identifier: string;
  /**
   * The sign-in link. With `link: false` there is none, and this is the page where the code is
   * typed (the verify-request page).
   */
  url: string;
  /**
   * The one-time code to show in the message, when the provider has `code` on; otherwise
   * undefined. Only its keyed hash is stored.
   */
  code?: string;
  /** When the link stops working. */
  expires: Date;
  /** The provider's final configuration (options merged, `apiKey` from the environment). */
  provider: EmailConfig;
  /** The raw token in the link (only its hash is stored). */
  token: string;
  /** The configuration's theme, to style the message like the pages. */
  theme: Theme;
  /** The sign-in request. */
  request: Request;
}

/**
 * SMTP transport options, as nodemailer takes them (only the common ones are named here; any
 * other nodemailer option passes through).
 */
export interface SmtpServerOptions {
  host?: string;
  port?: number;
  /** TLS from the first byte (port 465); otherwise STARTTLS is used when offered. */
  secure?: boolean;
  auth?: { user?: string; pass?: string; [option: string]: unknown };
  [option: string]: unknown;
}

export interface EmailConfig {
  id: string;
  name: string;
  type: "email";
  /** The sender: `"Acme <no-reply@acme.example>"` or a bare address. */
  from?: string;
  /** Seconds a link stays valid. @default 600 */
  maxAge?: number;
  /**
   * Sends the link. It must throw when the mail was not accepted: the user then sees
   * `error=EmailSignin` and the token is withdrawn.
   */
  sendVerificationRequest: (params: SendVerificationRequestParams) => Awaitable<void>;
  /**
   * Makes the token in the link. The default has 256 bits of randomness; a replacement must stay
   * unguessable within `maxAge`.
   * @default 32 random bytes, hex
   */
  generateVerificationToken?: () => Awaitable<string>;
  /**
   * Turns the submitted address into the identifier; throw to refuse it. Whatever it returns must
   * still be one mailbox (one "@", no spaces, separators, quotes or control characters).
   * @default normalizeEmailIdentifier
   */
  normalizeIdentifier?: (identifier: string) => string;
  /**
   * Also mail a short numeric code, typed on the verify-request page (it posts to
   * `/callback/<id>`): for mail scanners that open links, and for reading the mail on another
   * device. `true` is 6 digits and 5 attempts; a wrong code counts, and when the attempts are spent
   * the code and the link of that e-mail are void. The code expires with the link (`maxAge`) and
   * works once, and only in the browser that asked for it (it carries a sealed cookie).
   * @default false
   * @example
   * ```ts
   * Nodemailer({ server, from, code: { length: 8, attempts: 3 }, link: false })
   * ```
   */
  code?: boolean | { length?: number; attempts?: number };
  /** Put the link in the e-mail. `false` sends the code alone (needs `code`). @default true */
  link?: boolean;
  /** A key used instead of the configuration's secret to hash tokens. */
  secret?: string;
  /** An API key (HTTP e-mail services); `AUTH_<ID>_KEY` fills it. */
  apiKey?: string;
  /** SMTP server (Nodemailer): a URL such as `smtps://user:pass@smtp.example:465`, or transport options. */
  server?: string | SmtpServerOptions;
  /** Replaces `fetch` for the calls of the HTTP e-mail services. */
  [customFetch]?: typeof fetch;
  options?: EmailUserConfig;
}

/** What a caller passes to an e-mail provider factory: any field of {@link EmailConfig}. */
export type EmailUserConfig = Partial<Omit<EmailConfig, "type" | "options">>;

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
    options: config,
  };
}
