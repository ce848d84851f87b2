/**
 * The pages every framework's demo shows alike (the Express, Hono and Fastify demos import them):
 * the layout, the home page saying who is signed in and how, the protected page, and the
 * development mailbox. Plain HTML strings: each framework only sends them.
 */
import type { DemoSession } from "./auth.js";
import type { MailCatcher } from "./dev-mail.js";
import { DEMO_USER } from "./users.js";

export type { DemoSession };

/** How each provider id reads on the pages. */
export const methodNames: Record<string, string> = {
  credentials: "password",
  nodemailer: "e-mail link or code",
  passkey: "passkey",
  "demo-idp": "Demo IdP",
  github: "GitHub",
  google: "Google",
};

/** HTML-escapes a value for the pages. */
export const esc = (s: unknown) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A whole page: the navigation (with /dev/mail when `mail`), the title and `body`. */
export function layout(title: string, body: string, mail: boolean): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)} · Latchkey demo</title>
<style>:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#f4f5f7;--accent:#3b5bdb}
@media (prefers-color-scheme:dark){:root{--bg:#16181d;--fg:#e6e8eb;--muted:#23262d;--accent:#748ffc}}
body{font:16px/1.5 system-ui,sans-serif;max-width:760px;margin:0 auto;padding:24px 16px;background:var(--bg);color:var(--fg)}
a{color:var(--accent)}nav{display:flex;flex-wrap:wrap;gap:4px 16px}pre{background:var(--muted);padding:12px;border-radius:6px;overflow:auto}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:4px 8px;border-bottom:1px solid var(--muted);overflow-wrap:anywhere}
form.inline{display:inline;margin:0}.button{display:inline-block;background:var(--accent);color:#fff;padding:8px 14px;border-radius:6px;text-decoration:none;border:0;font:inherit;cursor:pointer}
input{font:inherit;padding:6px 8px;margin-right:8px}.alert{background:var(--muted);border-left:4px solid var(--accent);padding:8px 12px}
.qr{background:#fff;display:inline-block;border-radius:6px}.codes{columns:2;font-family:ui-monospace,monospace}
ul.mailbox{padding-left:0;list-style:none}.mail{margin-bottom:12px}.mail a,.mail .to{overflow-wrap:anywhere}</style>
</head><body><nav><a href="/">Home</a><a href="/protected">Protected</a><a href="/account">Session &amp; accounts</a>${mail ? '<a href="/dev/mail">Mail</a>' : ""}<a href="/auth/signout?callbackUrl=%2F">Sign out</a></nav>
<h1>${esc(title)}</h1>${body}</body></html>`;
}

/** The home page: who is signed in and with what, or how to sign in. */
export function homeBody(s: DemoSession | null, signedOutLinks = ""): string {
  return s?.user
    ? `<p id="who">Signed in as <strong>${esc(s.user.name ?? s.user.email)}</strong> (${esc(s.user.email)})
         with <strong id="method">${esc(methodNames[s.provider ?? ""] ?? s.provider ?? "a stored session")}</strong>${s.amr?.includes("otp") ? ' and <strong id="second-factor">an authenticator app code</strong>' : ""}.</p>
         <p><a class="button" href="/auth/signout?callbackUrl=%2F">Sign out</a></p>`
    : `<p id="who">You are not signed in.</p><p><a class="button" href="/auth/signin">Sign in</a></p>
         ${signedOutLinks}
         <p>Demo account: <code>${DEMO_USER.email}</code> / <code>${DEMO_USER.password}</code>.
         Sign-in e-mails (a link and a code) arrive at <a href="/dev/mail">/dev/mail</a>; the Demo IdP takes any name and password.</p>`;
}

/** The protected page of a signed-in user. */
export function protectedBody(s: DemoSession): string {
  return `<p id="secret">Only signed-in users see this, ${esc(s.user.name ?? s.user.email)}.</p>`;
}

/** The messages the development SMTP server caught, newest first, with their links and codes. */
export function mailBody(mailbox: MailCatcher): string {
  const items = mailbox.messages
    .map(
      (m) => `<li class="mail"><strong>${esc(m.subject)}</strong> to <span class="to">${esc(m.to.join(", "))}</span>,
            <time>${esc(m.date.toLocaleTimeString())}</time><br>${m.code ? `Code: <code class="code">${esc(m.code)}</code><br>` : ""}${m.links.map((l) => `<a href="${esc(l)}">${esc(l)}</a>`).join("<br>")}</li>`,
    )
    .join("");
  return `<p>The ${mailbox.messages.length} message(s) the development SMTP server (127.0.0.1:${mailbox.port}) caught, newest first. <a href="/dev/mail">Refresh</a></p><ul class="mailbox">${items}</ul>`;
}
