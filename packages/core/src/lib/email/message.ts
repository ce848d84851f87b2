import type { Theme } from "../../shapes/data.js";
import { html, safeColor } from "../pages/html.js";

/** The default sign-in e-mail, in both forms. */
export interface EmailMessage {
  subject: string;
  text: string;
  html: string;
}

/**
 * Builds the default sign-in e-mail: a subject naming the site's host, a plain-text body and an
 * HTML body themed like the built-in pages (`brandColor`, `buttonText`, colour scheme). Every value
 * is escaped; the host is broken with zero-width spaces in the HTML so that mail clients do not
 * turn it into a link of their own. With a `code`, the message shows it (and says where to type
 * it); `link: false` leaves the link out.
 *
 * @example
 * ```ts
 * const { subject, text, html } = emailMessage({ url, host: "app.example", theme: {}, expires, code: "049281" })
 * await transport.sendMail({ to: identifier, from, subject, text, html })
 * ```
 */
export function emailMessage(params: {
  url: string;
  host: string;
  theme?: Theme;
  expires?: Date;
  /** The one-time code to show. */
  code?: string;
  /** Whether to show the link. @default true */
  link?: boolean;
}): EmailMessage {
  const { url, host, theme = {}, code } = params;
  const withLink = params.link !== false || !code;
  const minutes = params.expires
    ? Math.max(1, Math.round((params.expires.getTime() - Date.now()) / 60_000))
    : undefined;
  const what = code ? (withLink ? "The code and the link work" : "The code works") : "The link works";
  const lifetime = minutes ? `${what} once, within ${minutes} minute${minutes === 1 ? "" : "s"}.` : `${what} once.`;
  const ignore = "If you did not ask for this e-mail, you can safely ignore it.";
  const brand = safeColor(theme.brandColor) ?? "#3b5bdb";
  const buttonText = safeColor(theme.buttonText) ?? "#ffffff";
  const dark = theme.colorScheme === "dark";
  const background = dark ? "#0d1117" : "#f4f5f7";
  const card = dark ? "#161b22" : "#ffffff";
  const textColor = dark ? "#e6edf3" : "#1f2328";
  const muted = dark ? "#9198a1" : "#59636e";
  const shownHost = host.replace(/\./g, "\u200b.");
  const font = "font-family:system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";

  const body = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Sign in to ${host}</title></head>
<body style="margin:0;padding:0;background:${background}">
<table role="presentation" width="100%" cellspacing="0" cellpadding="0" border="0" style="background:${background};padding:24px 0"><tr><td align="center">
<table role="presentation" width="100%" cellspacing="0" cellpadding="0" border="0" style="max-width:480px;background:${card};border-radius:10px;padding:28px 24px;${font};color:${textColor}">
<tr><td align="center" style="font-size:20px;font-weight:600;padding:0 0 12px">Sign in to <strong>${shownHost}</strong></td></tr>
${
  code
    ? html`<tr><td align="center" style="font-size:14px;color:${muted};padding:4px 0">Your sign-in code</td></tr>
<tr><td align="center" style="padding:4px 0 12px"><span style="display:inline-block;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:28px;font-weight:700;letter-spacing:6px;padding:10px 16px;border-radius:6px;border:1px solid ${muted}">${code}</span></td></tr>
<tr><td align="center" style="font-size:14px;color:${muted};padding:0 0 8px">Type it on the page that asked for this e-mail.</td></tr>`
    : ""
}${withLink ? html`<tr><td align="center" style="padding:12px 0"><a href="${url}" target="_blank" rel="noopener" style="display:inline-block;background:${brand};color:${buttonText};text-decoration:none;font-weight:600;font-size:16px;border-radius:6px;padding:12px 24px;border:1px solid ${brand}">Sign in</a></td></tr>` : ""}
<tr><td align="center" style="font-size:14px;line-height:1.5;color:${muted};padding:12px 0 0">${lifetime}<br>${ignore}</td></tr>
</table></td></tr></table>
</body></html>`;

  const codeText = code ? `Your sign-in code: ${code}\nType it on the page that asked for this e-mail.` : "";
  const textBody = code ? (withLink ? `${codeText}\n\nOr follow this link:\n${url}` : codeText) : url;
  return {
    subject: `Sign in to ${host}`,
    text: `Sign in to ${host}\n\n${textBody}\n\n${lifetime}\n${ignore}\n`,
    html: body.value,
  };
}
