/**
 * The configuration of an e-mail provider and what its sender receives: shared by the provider
 * factories (`providers/email.ts`, `nodemailer`, `resend`, ...) and the flow and senders in
 * `lib/flows/email/`. `@latchkey/core/providers/email` re-exports them.
 */
import type { customFetch, smtpSender } from "../lib/base/symbols.js";
import type { Awaitable, Theme } from "./data.js";

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
  /** The SMTP providers' sender (Nodemailer, Email): password-account e-mails go through it. */
  [smtpSender]?: SmtpSender;
  options?: EmailUserConfig;
}

/** What `smtpSender` keys: sends `message` (by default the sign-in e-mail of `params`) over SMTP. */
export type SmtpSender = (
  params: Omit<SendVerificationRequestParams, "request">,
  message?: { subject: string; text: string; html: string },
) => Promise<void>;

/** What a caller passes to an e-mail provider factory: any field of {@link EmailConfig}. */
export type EmailUserConfig = Partial<Omit<EmailConfig, "type" | "options">>;
