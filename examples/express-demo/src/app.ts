/**
 * The demo's Express application: Latchkey's routes under /auth, and a few pages that read the
 * session with getSession().
 */

import type { AdminApi } from "@latchkey/core/admin";
import {
  confirmTotpEnrolment,
  disableTotp,
  secondFactorStatus,
  startTotpEnrolment,
} from "@latchkey/core/second-factor";
import {
  type AuthConfig,
  AuthError,
  ExpressAuth,
  getCsrfToken,
  getSession,
  listAccounts,
  listAuditEvents,
  listSessions,
  PasswordAccounts,
  requireCsrf,
  revokeOtherSessions,
  revokeSession,
  unlinkAccount,
} from "@latchkey/express";
import express, { type NextFunction, type Request, type Response } from "express";
import { adminPage } from "./admin.js";
import type { DemoSession } from "./auth.js";
import type { DemoAuthorization } from "./authorization.js";
import type { MailCatcher } from "./dev-mail.js";
import { buttonForm, sameOrigin } from "./forms.js";
import { esc, homeBody, layout, mailBody, methodNames, protectedBody } from "./pages.js";
import { PASSWORD_PAGES, passwordAccounts } from "./passwords.js";
import type { Storage } from "./storage.js";
import { demoApi, organizationSection, teamPages } from "./team-pages.js";
import type { DemoTeams } from "./teams.js";
import { DEMO_USER } from "./users.js";

/** What the account page says after a second-factor form, by `?totp=`. */
const totpMessages: Record<string, string> = {
  invalid: "That code was not accepted. Enter the current code from your app, or a backup code.",
  "rate-limited": "Too many attempts. Try again in a few minutes.",
  disabled: "The authenticator app is turned off: signing in asks for no code any more.",
};

export interface AppOptions {
  config: AuthConfig;
  storage: Storage;
  /** The development mail catcher: serves /dev/mail when given. */
  mailbox?: MailCatcher | undefined;
  /** The demo's origin (`http://localhost:3000`), for a framework that must be told it (SvelteKit's `ORIGIN`). */
  url?: string;
  /** The demo as an authorization server (the Express demo): its endpoints, /api/me and /mcp. */
  authorization?: DemoAuthorization | undefined;
  /** The second application that signs in with the demo (development only). */
  partnerUrl?: string | undefined;
  /** Organizations and API keys (teams.ts): the account page's switcher, /account/members, /account/api-keys. */
  teams?: DemoTeams | undefined;
  /** The admin tools (admin.ts): /account/admin, for the admins `Admin` names. */
  admin?: AdminApi | undefined;
}

/** What the account page says after a button. */
const notices: Record<string, string> = {
  unlinked: "The account was unlinked.",
  "last-sign-in-method": "That is your last way to sign in: add another (a passkey, another provider) first.",
  "not-found": "No such account is linked to you.",
  "organization-created": "The organization was created, with you as its owner: switch to it below.",
  joined: "You joined the organization: switch to it below.",
  left: "You left the organization.",
};

/** The OAuth / OpenID Connect providers (id and name): the ones an account can be connected with. */
const oauthProviders = (config: AuthConfig) =>
  config.providers
    .map((p) => (typeof p === "function" ? p() : p))
    .filter((p) => p.type === "oauth" || p.type === "oidc")
    .map((p) => ({ id: p.id, name: p.name }));

const hasPasswordSignIn = (config: AuthConfig) =>
  config.providers.some((p) => typeof p !== "function" && p.id === "credentials");

/** Builds the demo application. */
export function createApp({ config, storage, mailbox, authorization, partnerUrl, teams, admin }: AppOptions) {
  const app = express();
  app.disable("x-powered-by");
  const page = (title: string, body: string) => layout(title, body, !!mailbox);
  const storedSessions = config.session?.strategy === "database";
  const session = async (req: Request) => (await getSession(req, config)) as DemoSession | null;
  // Under JWT sessions there is no list: `listSessions` says so with UnsupportedStrategy.
  const devicesOf = (req: Request) =>
    listSessions(req, config).catch((e: unknown) => {
      if (e instanceof AuthError && e.type === "UnsupportedStrategy") return null;
      throw e;
    });

  // 0. The demo as an authorization server: /.well-known/*, /oauth/*, /api/me, /mcp (authorization.ts).
  if (authorization) app.use(authorization.routes);
  // 0b. The API a program calls with an organization's API key (team-pages.ts).
  if (teams) app.use(demoApi({ teams, storage }));

  // 1. Latchkey's routes: /auth/signin, /auth/callback/<provider>, /auth/session, /auth/signout ...
  app.use("/auth", ExpressAuth(config));

  // 1b. Password accounts (they send e-mail, so only with mail): /password/signup, /check-email,
  // /verify, /forgot, /reset and /change, Latchkey's built-in pages (see passwords.ts).
  const passwordPages =
    hasPasswordSignIn(config) && config.providers.some((p) => typeof p !== "function" && p.id === "nodemailer");
  if (passwordPages) app.use(PASSWORD_PAGES, PasswordAccounts(config, passwordAccounts()));

  // 2. A public page that shows who is signed in, and how.
  app.get("/", async (req, res) => {
    const s = await session(req);
    const links =
      (passwordPages
        ? `<p id="password-links"><a href="${PASSWORD_PAGES}/signup">Create an account with a password</a> · <a href="${PASSWORD_PAGES}/forgot">Forgot your password?</a></p>`
        : "") +
      (authorization
        ? `<p id="authorization-links">The demo is also an authorization server: ${partnerUrl ? `<a href="${esc(partnerUrl)}">Reports</a>, a second app, signs in with it; ` : ""}<code>node dist/cli.js</code> signs a command line in with a device code; <code>/mcp</code> is an MCP server it protects.</p>`
        : "");
    res.send(page("Latchkey demo", homeBody(s, links)));
  });

  // 3. One route protected on its own: without a session, off to sign-in and back here after.
  app.get("/protected", async (req, res) => {
    const s = await session(req);
    if (!s?.user) return res.redirect(`/auth/signin?callbackUrl=${encodeURIComponent(req.originalUrl)}`);
    res.send(page("Protected page", protectedBody(s)));
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
    const [accounts, passkeys, devices, activity] = await Promise.all([
      listAccounts(req, config),
      storage.adapter.listAuthenticatorsByUserId?.(userId) ?? [],
      devicesOf(req),
      listAuditEvents(config, { userId, limit: 10 }),
    ]);
    // Every form of this page posts the CSRF token; the account functions check it themselves.
    const csrfToken = await getCsrfToken(req, res, config);
    const button = (action: string, fields: Record<string, string>, label: string) =>
      buttonForm(action, fields, label, csrfToken);
    const accountRows = (accounts ?? [])
      .map(
        (a) =>
          `<tr><td>${esc(methodNames[a.provider] ?? a.providerName ?? a.provider)}</td><td>${esc(a.type)}</td><td>${esc(a.providerAccountId)}</td><td>${button("/account/accounts/unlink", { provider: a.provider, id: a.providerAccountId }, "Unlink")}</td></tr>`,
      )
      .join("");
    const when = (date: Date | null) => (date ? esc(date.toISOString().replace("T", " ").slice(0, 16)) : "unknown");
    const deviceList = devices
      ? `<table id="devices"><tr><th>device</th><th>signed in (UTC)</th><th>last seen (UTC)</th><th></th></tr>${devices
          .map(
            (d) =>
              `<tr><td>${esc(d.device ?? "Unknown device")}</td><td>${when(d.createdAt)}</td><td>${when(d.lastSeenAt)}</td><td>${d.current ? "This device" : button("/account/sessions/revoke", { id: d.id }, "Sign out")}</td></tr>`,
          )
          .join(
            "",
          )}</table>${devices.length > 1 ? `<p>${button("/account/sessions/revoke-others", {}, "Sign out all other devices")}</p>` : ""}`
      : `<p id="devices-note">This demo keeps sessions in encrypted cookies (JWT): they are not stored, so they cannot be listed or signed out one by one. Start it with <code>DEMO_SESSIONS=database</code> to store them and list them here (every sign-in method, the password included, works with either).</p>`;
    // Which sign-ins add a linked account: a password only when its sessions are stored.
    const noAccounts = storedSessions
      ? "None yet: a sign-in with a provider, a passkey or the password adds one (an e-mail link or code does not)."
      : "None yet: a sign-in with a provider or a passkey adds one (a password or an e-mail link or code does not).";
    const notice = typeof req.query.notice === "string" ? notices[req.query.notice] : undefined;
    res.send(
      page(
        "Session & accounts",
        `${notice ? `<p id="notice"><strong>${esc(notice)}</strong></p>` : ""}
         <h2>Session</h2><p>What <code>getSession(req, config)</code> returns:</p><pre id="session">${esc(JSON.stringify(s, null, 2))}</pre>
         ${admin && (await admin.isAdmin(userId)) ? `<p id="admin-link">You are an admin of this application: <a href="/account/admin">search users, ban and unban</a>.</p>` : ""}
         ${teams ? await organizationSection({ config, storage, teams, page }, s, csrfToken) : ""}
         <h2>Signed-in devices</h2>${deviceList}
         <h2>Linked accounts</h2>${accountRows ? `<table id="accounts"><tr><th>provider</th><th>type</th><th>account id</th><th></th></tr>${accountRows}</table>` : `<p id="accounts-note">${noAccounts}</p>`}
         <h2>Connect another account</h2><p>A sign-in button never links an account to the one you are signed in to; this does (a CSRF-checked <code>POST /auth/signin/&lt;provider&gt;</code> with <code>connect=true</code>, finished under this very session).</p>
         ${oauthProviders(config)
           .map(
             (p) =>
               `<form class="connect inline" method="post" action="/auth/signin/${esc(p.id)}"><input type="hidden" name="csrfToken"><input type="hidden" name="connect" value="true"><input type="hidden" name="callbackUrl" value="/account"><button type="submit">Connect ${esc(p.name)}</button></form>`,
           )
           .join("")}
         <h2>Passkeys</h2><p id="passkeys">${passkeys.length} registered.</p>
         <form id="add-passkey" method="post" action="/auth/callback/passkey" data-webauthn-options="/auth/webauthn-options/passkey?action=register">
           <input type="hidden" name="csrfToken"><input type="hidden" name="action"><input type="hidden" name="data">
           <input type="hidden" name="callbackUrl" value="/account">
           <button type="submit">Add a passkey</button><p data-webauthn-error hidden></p></form>
         <script src="/auth/webauthn-script.js"></script>
         <script>fetch("/auth/csrf").then((r) => r.json()).then(({ csrfToken }) => {
           for (const input of document.querySelectorAll("#add-passkey [name=csrfToken], form.connect [name=csrfToken]")) input.value = csrfToken; });</script>
         ${await secondFactorSection(userId, String(req.query.totp ?? ""), csrfToken)}
         ${passwordPages ? `<h2>Password</h2><p><a id="change-password" href="${PASSWORD_PAGES}/change">Change your password</a> (the current one, or a sign-in in the last five minutes; your other sessions are signed out).</p>` : ""}
         <h2>Recent security events</h2><table id="activity"><tr><th>when (UTC)</th><th>event</th><th>method</th></tr>${activity
           .map(
             (e) =>
               `<tr><td>${when(e.at)}</td><td>${esc(e.type)}${"reason" in e ? ` (${esc(e.reason)})` : ""}</td><td>${esc(e.provider ? (methodNames[e.provider] ?? e.provider) : "")}</td></tr>`,
           )
           .join("")}</table>`,
      ),
    );
  });

  // Organizations, members, invitations and API keys (team-pages.ts).
  if (teams) account.use(teamPages({ config, storage, teams, page }));
  // The admin tools (admin.ts).
  if (admin) account.use(adminPage({ config, admin, page }));

  // The account page's buttons. revokeSession, revokeOtherSessions and unlinkAccount refuse a
  // post without the page's CSRF token (403): a form on another site, or on a sibling sub-domain
  // (same site, so SameSite=Lax does not stop it), cannot sign the user out or unlink. The
  // same-origin check is a second line.
  account.use(express.urlencoded({ extended: false, limit: "4kb" }));
  account.post("/sessions/revoke", sameOrigin, async (req, res) => {
    await revokeSession(req, config, req.body?.id);
    res.redirect(303, "/account");
  });
  account.post("/sessions/revoke-others", sameOrigin, async (req, res) => {
    await revokeOtherSessions(req, config);
    res.redirect(303, "/account");
  });
  account.post("/accounts/unlink", sameOrigin, async (req, res) => {
    const result = await unlinkAccount(
      req,
      config,
      { provider: req.body?.provider, providerAccountId: req.body?.id },
      // The demo user's password is a way in that Latchkey cannot see.
      { otherSignInMethods: (user) => (user.email === DEMO_USER.email && hasPasswordSignIn(config) ? 1 : 0) },
    );
    res.redirect(303, `/account?notice=${result.unlinked ? "unlinked" : result.reason}`);
  });

  // 5. A second factor, enrolled by the signed-in user: the server-side functions of
  // @latchkey/core/second-factor, called from the application's own pages.
  /** The account page's section: whether the factor is on, and the form that fits. */
  async function secondFactorSection(userId: string, message: string, csrfToken: string): Promise<string> {
    const token = `<input type="hidden" name="csrfToken" value="${esc(csrfToken)}">`;
    const status = await secondFactorStatus(config, userId);
    const notice = Object.hasOwn(totpMessages, message)
      ? `<p class="alert" role="alert" id="totp-message">${esc(totpMessages[message])}</p>`
      : "";
    const codeInput = `<input name="code" inputmode="numeric" autocomplete="one-time-code" required aria-label="Code">`;
    if (status.active) {
      return `<h2>Two-step verification</h2>${notice}
        <p id="totp-status">Authenticator app: <strong>on</strong>. <span id="backup-codes-left">${status.backupCodesLeft}</span> backup code${status.backupCodesLeft === 1 ? "" : "s"} left.</p>
        <form id="totp-disable" method="POST" action="/account/totp/disable">${token}<label>Turn it off with a current code (or a backup code):<br>
        ${codeInput.replace('inputmode="numeric"', 'inputmode="text"')}</label><button class="button" type="submit">Turn off</button></form>`;
    }
    const waiting = status.pending
      ? `<form id="totp-confirm" method="POST" action="/account/totp/confirm">${token}<label>A set-up is waiting for the first code from your app:<br>
         ${codeInput}</label><button class="button" type="submit">Turn on</button></form>`
      : "";
    return `<h2>Two-step verification</h2>${notice}
      <p id="totp-status">Authenticator app: <strong>off</strong>.</p>${waiting}
      <form id="totp-start" method="POST" action="/account/totp/start">${token}<button class="button" type="submit">${status.pending ? "Start again" : "Set up an authenticator app"}</button></form>`;
  }

  // These forms post the page's CSRF token, checked by requireCsrf (403 without it), and must
  // come from this origin too (Chromium and Firefox send Origin with every form POST).
  account.use("/totp", express.urlencoded({ extended: false, limit: "2kb" }), requireCsrf(config), (req, res, next) => {
    const origin = `${req.protocol}://${req.get("host")}`;
    if (req.method !== "POST" || req.get("origin") === origin) return next();
    res.status(403).send(page("Refused", "<p>This form must be sent from this site.</p>"));
  });
  account.post("/totp/start", async (req, res) => {
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
         <form id="totp-confirm" method="POST" action="/account/totp/confirm"><input type="hidden" name="csrfToken" value="${esc(await getCsrfToken(req, res, config))}"><label>Then enter the six-digit code the app shows:<br>
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
    app.get("/dev/mail", (_req, res) => void res.send(page("Mail", mailBody(mailbox))));
  }

  return app;
}
