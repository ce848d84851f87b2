/**
 * Magic-link sign-in by e-mail sent through [Mailgun](https://www.mailgun.com)'s REST API
 * (`POST https://api.mailgun.net/v3/<domain>/messages`, or `api.eu.mailgun.net` for domains in the
 * EU region; HTTP Basic auth `api:<apiKey>`; a multipart form).
 *
 * - Environment variable: `AUTH_MAILGUN_KEY` (the API key or a domain sending key)
 * - `domain` defaults to the domain of the `from` address.
 *
 * @example
 * ```ts
 * import Mailgun from "@latchkey/core/providers/mailgun"
 * Mailgun({ from: "Acme <no-reply@mg.acme.example>", region: "eu" }) // apiKey from AUTH_MAILGUN_KEY
 * ```
 * @see https://documentation.mailgun.com/docs/mailgun/user-manual/sending-messages/send-http
 * @module providers/mailgun
 */
import { toBase64, utf8 } from "#platform";
import { callEmailApi, defaultMessage, parseMailbox, requireApiKey, requireFrom } from "../lib/email/send.js";
import type { EmailConfig, EmailUserConfig, SendVerificationRequestParams } from "./email.js";

export type { EmailConfig, SendVerificationRequestParams } from "./email.js";

/** The Mailgun provider's configuration: an e-mail provider with a sending domain and region. */
export interface MailgunConfig extends EmailConfig {
  /** The sending domain at Mailgun. @default the domain of `from` */
  domain?: string;
  /** Where the domain was created. @default "us" */
  region?: "us" | "eu";
  options?: MailgunUserConfig;
}

/** Options of the Mailgun provider. */
export type MailgunUserConfig = EmailUserConfig & { domain?: string; region?: "us" | "eu" };

/**
 * Sends the default sign-in e-mail with Mailgun.
 *
 * @example
 * ```ts
 * Mailgun({ sendVerificationRequest: (params) => sendWithMailgun(params) })
 * ```
 */
export async function sendWithMailgun(params: SendVerificationRequestParams): Promise<void> {
  const provider = params.provider as MailgunConfig;
  const apiKey = requireApiKey(provider);
  const from = requireFrom(provider);
  const domain = provider.domain ?? parseMailbox(from).email.split("@")[1];
  if (!domain || !/^[a-z0-9.-]+$/i.test(domain)) {
    throw new TypeError(`E-mail provider "${provider.id}" needs a \`domain\` (the sending domain at Mailgun).`);
  }
  const host = provider.region === "eu" ? "api.eu.mailgun.net" : "api.mailgun.net";
  const { subject, text, html } = defaultMessage(params);
  const form = new FormData();
  form.set("from", from);
  form.set("to", params.identifier);
  form.set("subject", subject);
  form.set("text", text);
  form.set("html", html);
  await callEmailApi(provider, "Mailgun", `https://${host}/v3/${domain}/messages`, {
    headers: { Authorization: `Basic ${toBase64(utf8(`api:${apiKey}`))}` },
    body: form,
  });
}

/**
 * Makes the Mailgun e-mail provider (id `mailgun`).
 *
 * @example
 * ```ts
 * Mailgun({ apiKey: "key-123", from: "no-reply@mg.acme.example", domain: "mg.acme.example" })
 * ```
 */
export default function Mailgun(config: MailgunUserConfig = {}): MailgunConfig {
  return {
    id: "mailgun",
    name: "Mailgun",
    type: "email",
    maxAge: 10 * 60,
    sendVerificationRequest: sendWithMailgun,
    options: config,
  };
}
