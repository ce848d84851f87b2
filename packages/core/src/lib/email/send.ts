import type { EmailConfig, SendVerificationRequestParams } from "../../shapes/email.js";
import { customFetch } from "../base/symbols.js";
import { type EmailMessage, emailMessage } from "./message.js";

/** A mailbox split into its display name and address: `"Ada <ada@example.com>"`. */
export function parseMailbox(value: string): { name?: string; email: string } {
  const [, display = "", email] = /^\s*(.*?)\s*<([^<>\s]+@[^<>\s]+)>\s*$/.exec(value) ?? [];
  if (email === undefined) return { email: value.trim() };
  const name = display.replace(/^"(.*)"$/, "$1").trim();
  return name ? { name, email } : { email };
}

/** The `from` option, or a clear error naming it. */
export function requireFrom(provider: EmailConfig): string {
  if (typeof provider.from !== "string" || provider.from.trim() === "") {
    throw new TypeError(
      `E-mail provider "${provider.id}" needs a \`from\` address (for example "Acme <no-reply@acme.example>").`,
    );
  }
  return provider.from;
}

/** The `apiKey` option (or `AUTH_<ID>_KEY`), or a clear error naming both. */
export function requireApiKey(provider: EmailConfig): string {
  if (typeof provider.apiKey !== "string" || provider.apiKey === "") {
    const env = `AUTH_${provider.id.toUpperCase().replace(/-/g, "_")}_KEY`;
    throw new TypeError(
      `E-mail provider "${provider.id}" needs an \`apiKey\` option or the ${env} environment variable.`,
    );
  }
  return provider.apiKey;
}

/** The default message of a sign-in request, for the site the link points to. */
export function defaultMessage(params: Omit<SendVerificationRequestParams, "request">): EmailMessage {
  return emailMessage({
    url: params.url,
    host: new URL(params.url).host,
    theme: params.theme,
    expires: params.expires,
    code: params.code,
    link: params.provider.link !== false,
  });
}

/**
 * Sends one request to an e-mail service's REST API through the provider's `customFetch` (or
 * `fetch`), and throws unless the service accepted it: a network failure, a timeout and every
 * non-2xx status are errors carrying the status and the start of the body.
 */
export async function callEmailApi(
  provider: EmailConfig,
  service: string,
  url: string,
  init: RequestInit,
): Promise<Response> {
  const fetcher = provider[customFetch] ?? fetch;
  const response = await fetcher(url, { ...init, method: "POST", signal: init.signal ?? AbortSignal.timeout(30_000) });
  if (!response.ok) {
    const detail = (await response.text().catch(() => "")).slice(0, 500);
    throw new Error(`${service} refused the e-mail: HTTP ${response.status}${detail ? ` ${detail}` : ""}`);
  }
  return response;
}
