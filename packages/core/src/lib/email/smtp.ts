/**
 * Sending over SMTP with nodemailer, for the SMTP providers (`providers/nodemailer.ts`,
 * `providers/email.ts`) alone: nodemailer (Node.js's `net`, `tls`, `stream`) is reached only
 * from those modules, so an application without them bundles none of it for an Edge runtime or a
 * Worker. Password-account e-mails use the provider's sender (`smtpSender`), not this module.
 */
import type { SendVerificationRequestParams } from "../../shapes/email.js";
import { fieldOf, textOf } from "../base/merge.js";
import type { EmailMessage } from "./message.js";
import { defaultMessage, parseMailbox, requireFrom } from "./send.js";

/** The part of nodemailer the provider uses. */
interface NodemailerLike {
  createTransport(options: unknown): {
    sendMail(
      mail: Record<string, unknown>,
    ): Promise<{ accepted?: unknown[]; rejected?: unknown[]; pending?: unknown[] }>;
    close(): void;
  };
}

async function loadNodemailer(): Promise<NodemailerLike> {
  try {
    const module = (await import("nodemailer")) as unknown as { default?: NodemailerLike } & NodemailerLike;
    return module.default ?? module;
  } catch (e) {
    throw new Error('The Nodemailer provider needs the "nodemailer" package: npm install nodemailer', { cause: e });
  }
}

/**
 * Sends the sign-in e-mail over SMTP with nodemailer (loaded on first use, so core works without
 * it). The mail goes to the identifier alone, given as an address object so that nodemailer never
 * parses it as a list. A send that the server did not accept for the recipient throws, even when
 * nodemailer resolves (partly rejected or pending recipients).
 */
export async function sendWithNodemailer(
  params: Omit<SendVerificationRequestParams, "request">,
  message: EmailMessage = defaultMessage(params),
): Promise<void> {
  const { provider, identifier } = params;
  const from = requireFrom(provider);
  const { server } = provider;
  if (!server || (typeof server !== "string" && typeof server !== "object")) {
    throw new TypeError(
      `E-mail provider "${provider.id}" needs a \`server\`: an SMTP URL or nodemailer transport options.`,
    );
  }
  const nodemailer = await loadNodemailer();
  const transport = nodemailer.createTransport(server);
  try {
    const result = await transport.sendMail({
      to: { name: "", address: identifier },
      from,
      envelope: { from: parseMailbox(from).email, to: [identifier] },
      subject: message.subject,
      text: message.text,
      html: message.html,
    });
    const failed = [...(result.rejected ?? []), ...(result.pending ?? [])];
    const accepted = (result.accepted ?? []).map((a) =>
      (typeof a === "string" ? a : textOf(fieldOf(a, "address")))?.toLowerCase(),
    );
    if (failed.length > 0 || !accepted.includes(identifier.toLowerCase())) {
      throw new Error(
        `The SMTP server did not accept the recipient (rejected: ${failed.length}, accepted: ${accepted.length})`,
      );
    }
  } finally {
    transport.close();
  }
}
