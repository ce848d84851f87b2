/**
 * Magic-link sign-in by e-mail sent through [Postmark](https://postmarkapp.com)'s REST API
 * (`POST https://api.postmarkapp.com/email`, `X-Postmark-Server-Token: <apiKey>`, message
 * stream `outbound`).
 *
 * - Environment variable: `AUTH_POSTMARK_KEY` (the server API token)
 * - `from` must be a confirmed sender signature at Postmark.
 *
 * @example
 * ```ts
 * import Postmark from "@latchkey/core/providers/postmark"
 * Postmark({ from: "Acme <no-reply@acme.example>" }) // apiKey from AUTH_POSTMARK_KEY
 * ```
 * @see https://postmarkapp.com/developer/user-guide/send-email-with-api
 * @module providers/postmark
 */
import { callEmailApi, defaultMessage, requireApiKey, requireFrom } from "../lib/email/send.js";
import type { EmailConfig, EmailUserConfig, SendVerificationRequestParams } from "./email.js";

export type { EmailConfig, SendVerificationRequestParams } from "./email.js";

/**
 * Sends the default sign-in e-mail with Postmark. A 200 answer whose `ErrorCode` is not 0 is a
 * failure too.
 *
 * @example
 * ```ts
 * Postmark({ sendVerificationRequest: (params) => sendWithPostmark(params) })
 * ```
 */
export async function sendWithPostmark(params: SendVerificationRequestParams): Promise<void> {
  const { provider, identifier } = params;
  const apiKey = requireApiKey(provider);
  const from = requireFrom(provider);
  const { subject, text, html } = defaultMessage(params);
  const response = await callEmailApi(provider, "Postmark", "https://api.postmarkapp.com/email", {
    headers: { Accept: "application/json", "Content-Type": "application/json", "X-Postmark-Server-Token": apiKey },
    body: JSON.stringify({
      From: from,
      To: identifier,
      Subject: subject,
      TextBody: text,
      HtmlBody: html,
      MessageStream: "outbound",
    }),
  });
  const result = (await response.json().catch(() => null)) as { ErrorCode?: number; Message?: string } | null;
  if (result?.ErrorCode !== 0) {
    throw new Error(
      `Postmark refused the e-mail: ErrorCode ${result?.ErrorCode ?? "missing"} ${result?.Message ?? ""}`.trim(),
    );
  }
}

/**
 * Makes the Postmark e-mail provider (id `postmark`).
 *
 * @example
 * ```ts
 * Postmark({ apiKey: "server-token", from: "no-reply@acme.example" })
 * ```
 */
export default function Postmark(config: EmailUserConfig = {}): EmailConfig {
  return {
    id: "postmark",
    name: "Postmark",
    type: "email",
    maxAge: 10 * 60,
    sendVerificationRequest: sendWithPostmark,
    options: config,
  };
}
