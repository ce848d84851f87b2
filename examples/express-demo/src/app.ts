/**
 * The demo's Express application: Latchkey's routes under /auth, and a few pages that read the
 * session with getSession().
 */
import {
  confirmTotpEnrolment,
  disableTotp,
  secondFactorStatus,
  startTotpEnrolment,
} from "@latchkey/core/second-factor";
import { type AuthConfig, ExpressAuth, getSession } from "@latchkey/express";
import express, { type NextFunction, type Request, type Response } from "express";
import type { DemoSession } from "./auth.js";
import type { MailCatcher } from "./dev-mail.js";
import type { Storage } from "./storage.js";
import { DEMO_USER } from "./users.js";

/** How each provider id reads on the pages. */
const methodNames: Record<string, string> = {
  credentials: "password",
  nodemailer: "e-mail link or code",
  passkey: "passkey",
  "demo-idp": "Demo IdP",
  github: "GitHub",
  google: "Google",
};

/** What the account page says after a second-factor form, by `?totp=`. */
const totpMessages: Record<string, string> = {
  invalid: "That code was not accepted. Enter the current code from your app, or a backup code.",
  "rate-limited": "Too many attempts. Try again in a few minutes.",
  disabled: "The authenticator app is turned off: signing in asks for no code any more.",
};

const esc = (s: unknown) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function layout(title: string, body: string, mail: boolean): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)} · Latchkey demo</title>
<style>:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#f4f5f7;--accent:#3b5bdb}
@media (prefers-color-scheme:dark){:root{--bg:#16181d;--fg:#e6e8eb;--muted:#23262d;--accent:#748ffc}}
body{font:16px/1.5 system-ui,sans-serif;max-width:760px;margin:0 auto;padding:24px 16px;background:var(--bg);color:var(--fg)}
a{color:var(--accent)}nav{display:flex;flex-wrap:wrap;gap:4px 16px}pre{background:var(--muted);padding:12px;border-radius:6px;overflow:auto}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:4px 8px;border-bottom:1px solid var(--muted);overflow-wrap:anywhere}
.button{display:inline-block;background:var(--accent);color:#fff;padding:8px 14px;border-radius:6px;text-decoration:none;border:0;font:inherit;cursor:pointer}
input{font:inherit;padding:6px 8px;margin-right:8px}.alert{background:var(--muted);border-left:4px solid var(--accent);padding:8px 12px}
.qr{background:#fff;display:inline-block;border-radius:6px}.codes{columns:2;font-family:ui-monospace,monospace}</style>
</head><body><nav><a href="/">Home</a><a href="/protected">Protected</a><a href="/account">Session &amp; accounts</a>${mail ? '<a href="/dev/mail">Mail</a>' : ""}<a href="/auth/signout?callbackUrl=%2F">Sign out</a></nav>
<h1>${esc(title)}</h1>${body}</body></html>`;
}

export interface AppOptions {
  config: AuthConfig;
  storage: Storage;
  /** The development mail catcher: serves /dev/mail when given. */
  mailbox?: MailCatcher | undefined;
}

/** Builds the demo application. */
export function createApp({ config, storage, mailbox }: AppOptions) {
  const app = express();
  app.disable("x-powered-by");
  const page = (title: string, body: string) => layout(title, body, !!mailbox);
  const session = async (req: Request) => (await getSession(req, config)) as DemoSession | null;

  // 1. Latchkey's routes: /auth/signin, /auth/callback/<provider>, /auth/session, /auth/signout ...
  app.use("/auth", ExpressAuth(config));

  // 2. A public page that shows who is signed in, and how.
  app.get("/", async (req, res) => {
    const s = await session(req);
    const body = s?.user
      ? `<p id="who">Signed in as <strong>${esc(s.user.name ?? s.user.email)}</strong> (${esc(s.user.email)})
         with <strong id="method">${esc(methodNames[s.provider ?? ""] ?? s.provider)}</strong>${s.amr?.includes("otp") ? ' and <strong id="second-factor">an authenticator app code</strong>' : ""}.</p>
         <p><a class="button" href="/auth/signout?callbackUrl=%2F">Sign out</a></p>`
      : `<p id="who">You are not signed in.</p><p><a class="button" href="/auth/signin">Sign in</a></p>
         <p>Demo account: <code>${DEMO_USER.email}</code> / <code>${DEMO_USER.password}</code>.
         Sign-in e-mails (a link and a code) arrive at <a href="/dev/mail">/dev/mail</a>; the Demo IdP takes any name and password.</p>`;
    res.send(page("Latchkey demo", body));
  });

  // 3. One route protected on its own: without a session, off to sign-in and back here after.
  app.get("/protected", async (req, res) => {
    const s = await session(req);
    if (!s?.user) return res.redirect(`/auth/signin?callbackUrl=${encodeURIComponent(req.originalUrl)}`);
    res.send(
      page("Protected page", `<p id="secret">Only signed-in users see this, ${esc(s.user.name ?? s.user.email)}.</p>`),
    );
  });

  // 4. A group of routes protected once, by a middleware on the router.
  const account = express.Router();
  account.use(async (req: Request, res: Response, next: NextFunction) => {
    const s = await session(req);
    if (!s?.user) return res.redirect(`/auth/signin?callbackUrl=${encodeURIComponent(req.originalUrl)}`);
    res.locals.session = s;
    next();
  });
  account.get("/", async (req, res) => {
    const s = res.locals.session as DemoSession;
    const userId = s.user.id ?? "";
    const accounts = await storage.listAccounts(userId);
    const passkeys = (await storage.adapter.listAuthenticatorsByUserId?.(userId)) ?? [];
    const rows = accounts
      .map(
        (a) =>
          `<tr><td>${esc(methodNames[a.provider] ?? a.provider)}</td><td>${esc(a.type)}</td><td>${esc(a.providerAccountId)}</td></tr>`,
      )
      .join("");
    res.send(
      page(
        "Session & accounts",
        `<h2>Session</h2><p>What <code>getSession(req, config)</code> returns:</p><pre id="session">${esc(JSON.stringify(s, null, 2))}</pre>
         <h2>Linked accounts</h2>${rows ? `<table id="accounts"><tr><th>provider</th><th>type</th><th>account id</th></tr>${rows}</table>` : "<p>None yet: password sign-ins link no account.</p>"}
         <h2>Passkeys</h2><p id="passkeys">${passkeys.length} registered.</p>
         ${await secondFactorSection(userId, String(req.query.totp ?? ""))}`,
      ),
    );
  });

  // 5. A second factor, enrolled by the signed-in user: the server-side functions of
  // @latchkey/core/second-factor, called from the application's own pages.
  /** The account page's section: whether the factor is on, and the form that fits. */
  async function secondFactorSection(userId: string, message: string): Promise<string> {
    const status = await secondFactorStatus(config, userId);
    const notice = Object.hasOwn(totpMessages, message)
      ? `<p class="alert" role="alert" id="totp-message">${esc(totpMessages[message])}</p>`
      : "";
    const codeInput = `<input name="code" inputmode="numeric" autocomplete="one-time-code" required aria-label="Code">`;
    if (status.active) {
      return `<h2>Two-step verification</h2>${notice}
        <p id="totp-status">Authenticator app: <strong>on</strong>. <span id="backup-codes-left">${status.backupCodesLeft}</span> backup code${status.backupCodesLeft === 1 ? "" : "s"} left.</p>
        <form id="totp-disable" method="POST" action="/account/totp/disable"><label>Turn it off with a current code (or a backup code):<br>
        ${codeInput.replace('inputmode="numeric"', 'inputmode="text"')}</label><button class="button" type="submit">Turn off</button></form>`;
    }
    const waiting = status.pending
      ? `<form id="totp-confirm" method="POST" action="/account/totp/confirm"><label>A set-up is waiting for the first code from your app:<br>
         ${codeInput}</label><button class="button" type="submit">Turn on</button></form>`
      : "";
    return `<h2>Two-step verification</h2>${notice}
      <p id="totp-status">Authenticator app: <strong>off</strong>.</p>${waiting}
      <form id="totp-start" method="POST" action="/account/totp/start"><button class="button" type="submit">${status.pending ? "Start again" : "Set up an authenticator app"}</button></form>`;
  }

  // The session cookie is SameSite=Lax, and these forms also require a same-origin request, so
  // another site cannot post them (Chromium and Firefox send Origin with every form POST).
  account.use("/totp", express.urlencoded({ extended: false, limit: "2kb" }), (req, res, next) => {
    const origin = `${req.protocol}://${req.get("host")}`;
    if (req.method !== "POST" || req.get("origin") === origin) return next();
    res.status(403).send(page("Refused", "<p>This form must be sent from this site.</p>"));
  });
  account.post("/totp/start", async (_req, res) => {
    const s = res.locals.session as DemoSession;
    // An active factor is turned off (with a code) before a new one is set up.
    if ((await secondFactorStatus(config, s.user.id ?? "")).active) return res.redirect(303, "/account");
    const enrolment = await startTotpEnrolment(config, { id: s.user.id ?? "", label: s.user.email ?? s.user.id ?? "" });
    // The QR code is an SVG made by Latchkey in process: the secret is sent to no other service.
    res.send(
      page(
        "Set up an authenticator app",
        `<p>Scan this code with an authenticator app (any app for "TOTP" codes), or type the key by hand.</p>
         <p class="qr" id="totp-qr">${enrolment.qrSvg}</p>
         <p>Key: <code id="totp-secret">${esc(enrolment.secret)}</code></p>
         <form id="totp-confirm" method="POST" action="/account/totp/confirm"><label>Then enter the six-digit code the app shows:<br>
         <input name="code" inputmode="numeric" autocomplete="one-time-code" required aria-label="Code" autofocus></label><button class="button" type="submit">Turn on</button></form>`,
      ),
    );
  });
  account.post("/totp/confirm", async (req, res) => {
    const s = res.locals.session as DemoSession;
    const result = await confirmTotpEnrolment(config, s.user.id ?? "", req.body?.code);
    if (!result.ok) return res.redirect(303, `/account?totp=${result.reason}`);
    // Shown this once: only their hashes are stored.
    res.send(
      page(
        "Backup codes",
        `<p id="totp-status">Authenticator app: <strong>on</strong>. From now on, signing in asks for a code from the app.</p>
         <p>Keep these backup codes somewhere safe. Each one signs you in once without the app; they are not shown again.</p>
         <ol class="codes" id="backup-codes">${result.backupCodes.map((c) => `<li><code>${esc(c)}</code></li>`).join("")}</ol>
         <p><a class="button" href="/account">Done</a></p>`,
      ),
    );
  });
  account.post("/totp/disable", async (req, res) => {
    const s = res.locals.session as DemoSession;
    const result = await disableTotp(config, s.user.id ?? "", req.body?.code);
    res.redirect(303, `/account?totp=${result.ok ? "disabled" : result.reason}`);
  });
  app.use("/account", account);

  // 6. Development only: the messages the demo's SMTP server caught, with their links.
  if (mailbox) {
    app.get("/dev/mail", (_req, res) => {
      const items = mailbox.messages
        .map(
          (
            m,
          ) => `<li class="mail"><strong>${esc(m.subject)}</strong> to <span class="to">${esc(m.to.join(", "))}</span>,
            <time>${esc(m.date.toLocaleTimeString())}</time><br>${m.code ? `Code: <code class="code">${esc(m.code)}</code><br>` : ""}${m.links.map((l) => `<a href="${esc(l)}">${esc(l)}</a>`).join("<br>")}</li>`,
        )
        .join("");
      res.send(
        page(
          "Mail",
          `<p>The ${mailbox.messages.length} message(s) the development SMTP server (127.0.0.1:${mailbox.port}) caught, newest first. <a href="/dev/mail">Refresh</a></p><ul>${items}</ul>`,
        ),
      );
    });
  }

  return app;
}
