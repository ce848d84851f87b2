/**
 * The demo's Express application: Latchkey's routes under /auth, and a few pages that read the
 * session with getSession().
 */
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

const esc = (s: unknown) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function layout(title: string, body: string, mail: boolean): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)} · Latchkey demo</title>
<style>:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#f4f5f7;--accent:#3b5bdb}
@media (prefers-color-scheme:dark){:root{--bg:#16181d;--fg:#e6e8eb;--muted:#23262d;--accent:#748ffc}}
body{font:16px/1.5 system-ui,sans-serif;max-width:760px;margin:0 auto;padding:24px 16px;background:var(--bg);color:var(--fg)}
a{color:var(--accent)}nav{display:flex;flex-wrap:wrap;gap:4px 16px}pre{background:var(--muted);padding:12px;border-radius:6px;overflow:auto}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:4px 8px;border-bottom:1px solid var(--muted);overflow-wrap:anywhere}
.button{display:inline-block;background:var(--accent);color:#fff;padding:8px 14px;border-radius:6px;text-decoration:none}</style>
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
         with <strong id="method">${esc(methodNames[s.provider ?? ""] ?? s.provider)}</strong>.</p>
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
  account.get("/", async (_req, res) => {
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
         <h2>Passkeys</h2><p id="passkeys">${passkeys.length} registered.</p>`,
      ),
    );
  });
  app.use("/account", account);

  // 5. Development only: the messages the demo's SMTP server caught, with their links.
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
