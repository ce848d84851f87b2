/**
 * The e-mails of password accounts, in text and HTML. Every value is escaped; the host is broken
 * with zero-width spaces in the HTML so that mail clients do not turn it into a link of their own.
 */
import type { Theme } from "../../shapes/data.js";
import { html, type SafeHtml, safeColor } from "../pages/html.js";

/** Which e-mail it is. */
export type AccountMailKind =
  /** After a sign-up: a link and a code that prove the address. */
  | "verify"
  /** A sign-up with an address that already has an account: sent to its owner instead. */
  | "taken"
  /** A password reset link. */
  | "reset"
  /** A reset was asked for an address without an account. */
  | "reset-unknown"
  /** The password was changed (by a reset or on the account page). */
  | "changed";

/** One e-mail of a password account, as handed to the `send` option. */
export interface AccountMail {
  kind: AccountMailKind;
  /** The one recipient: a normalised address. */
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The link the e-mail carries, if any. */
  url?: string;
  /** The verification code, for `verify`. */
  code?: string;
}

/** What an e-mail of the library says: a heading, lines, and a code, a button or links. */
interface MailContent {
  heading: string;
  lines: string[];
  code?: string;
  button?: { label: string; url: string };
  links?: Array<{ label: string; url: string }>;
}

/**
 * One e-mail of the library (password accounts, invitations) in text and HTML, every value
 * escaped, the host named in the subject and the heading.
 */
export function renderMail<K extends string>(
  kind: K,
  to: string,
  host: string,
  theme: Theme,
  content: MailContent,
): Omit<AccountMail, "kind"> & { kind: K } {
  const brand = safeColor(theme.brandColor) ?? "#3b5bdb";
  const buttonText = safeColor(theme.buttonText) ?? "#ffffff";
  const shownHost = host.replace(/\./g, "\u200b.");
  const font = "font-family:system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";
  const row = (inner: SafeHtml | string) => html`<tr><td style="padding:6px 0">${inner}</td></tr>`;
  const body = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${content.heading}</title></head>
<body style="margin:0;padding:24px;background:#f4f5f7"><table role="presentation" width="100%" style="max-width:480px;margin:auto;background:#fff;border-radius:10px;padding:24px;${font};color:#1f2328">
${row(html`<strong style="font-size:20px">${content.heading}</strong> <span style="color:#59636e">(${shownHost})</span>`)}
${content.lines.map((line) => row(line))}
${content.code ? row(html`<span style="font-family:ui-monospace,Menlo,monospace;font-size:28px;font-weight:700;letter-spacing:6px">${content.code}</span>`) : ""}
${content.button ? row(html`<a href="${content.button.url}" style="display:inline-block;background:${brand};color:${buttonText};text-decoration:none;font-weight:600;border-radius:6px;padding:12px 24px">${content.button.label}</a>`) : ""}
${(content.links ?? []).map((link) => row(html`<a href="${link.url}">${link.label}</a>`))}
</table></body></html>`;
  const text = [
    `${content.heading} (${host})`,
    "",
    ...content.lines,
    ...(content.code ? ["", `Code: ${content.code}`] : []),
    ...(content.button ? ["", `${content.button.label}: ${content.button.url}`] : []),
    ...(content.links ?? []).map((link) => `${link.label}: ${link.url}`),
    "",
  ].join("\n");
  return {
    kind,
    to,
    subject: `${content.heading} (${host})`,
    text,
    html: body.value,
    ...(content.button && { url: content.button.url }),
    ...(content.code && { code: content.code }),
  };
}

/** A duration in words: "30 minutes", "24 hours", "7 days". */
export const minutes = (seconds: number) => {
  const m = Math.max(1, Math.round(seconds / 60));
  if (m >= 72 * 60) return `${Math.round(m / 1440)} days`;
  return m >= 120 ? `${Math.round(m / 60)} hours` : `${m} minute${m === 1 ? "" : "s"}`;
};

/** The e-mail of each {@link AccountMailKind}. */
export const accountMails = {
  verify(to: string, host: string, theme: Theme, p: { url: string; code: string; maxAge: number }) {
    return renderMail("verify", to, host, theme, {
      heading: "Confirm your e-mail address",
      lines: [
        "Someone signed up with this address. If it was you, type this code on the page that asked for it, or open the link.",
        `They work once, within ${minutes(p.maxAge)}. If you did not sign up, ignore this e-mail: nothing happens without it.`,
      ],
      code: p.code,
      button: { label: "Confirm my address", url: p.url },
    });
  },
  taken(to: string, host: string, theme: Theme, p: { signIn: string; reset: string }) {
    return renderMail("taken", to, host, theme, {
      heading: "You already have an account",
      lines: [
        "Someone tried to sign up with this address, which already has an account. If it was you, sign in, or reset your password if you forgot it.",
        "If it was not you, ignore this e-mail: nothing was changed.",
      ],
      links: [
        { label: "Sign in", url: p.signIn },
        { label: "Reset your password", url: p.reset },
      ],
    });
  },
  reset(to: string, host: string, theme: Theme, p: { url: string; maxAge: number }) {
    return renderMail("reset", to, host, theme, {
      heading: "Reset your password",
      lines: [
        `Someone asked to reset the password of the account with this address. The link works once, within ${minutes(p.maxAge)}.`,
        "If it was not you, ignore this e-mail: your password stays as it is.",
      ],
      button: { label: "Choose a new password", url: p.url },
    });
  },
  resetUnknown(to: string, host: string, theme: Theme, p: { signUp: string }) {
    return renderMail("reset-unknown", to, host, theme, {
      heading: "No account with this address",
      lines: [
        "Someone asked to reset a password for this address, but no account uses it. If it was you, you may have signed up with another address, or you can sign up now.",
        "If it was not you, ignore this e-mail.",
      ],
      links: [{ label: "Sign up", url: p.signUp }],
    });
  },
  changed(to: string, host: string, theme: Theme, p: { reset: string }) {
    return renderMail("changed", to, host, theme, {
      heading: "Your password was changed",
      lines: [
        "The password of your account was just changed, and every other session of it was signed out.",
        "If it was not you, reset your password now.",
      ],
      links: [{ label: "Reset your password", url: p.reset }],
    });
  },
};
