/**
 * The built-in pages of password accounts: sign-up, "check your e-mail" (the code form), the
 * verification link's page, forgotten password, reset and change. Each form posts its CSRF token.
 */
import type { PasswordPolicyReason } from "../password/policy.js";
import { html, type SafeHtml } from "./html.js";

/** The form fields every account page has: where it posts and its CSRF token. */
interface Form {
  action: string;
  csrfToken: string;
}

/** What a page shows above its form: a refusal, or a note. */
export interface PageNotice {
  error?: string;
  reasons?: PasswordPolicyReason[];
  note?: string;
}

const reasonText: Record<PasswordPolicyReason, string> = {
  invalid: "Type a password.",
  "too-short": "The password is too short.",
  "too-long": "The password is too long.",
  "control-character": "The password holds a control character.",
  identifier: "The password must not contain your e-mail address or name.",
  "context-word": "The password must not contain the name of this site.",
};

/** The sentence shown for each refusal a function of `@latchkey/core/accounts` answers. */
const errorText: Record<string, string> = {
  "invalid-email": "That is not an e-mail address we can send to.",
  "weak-password": "Choose another password.",
  "breached-password": "This password appears in known data breaches: choose another one.",
  "rate-limited": "Too many attempts. Wait a while and try again.",
  invalid: "That code or link is not valid: mistyped, used, or expired.",
  "password-required": "This link was opened in another browser: type the password you chose to confirm.",
  "invalid-token": "This reset link is not valid: it may have been used or have expired. Ask for a new one.",
  "signed-out": "Sign in first.",
  "wrong-password": "The current password is wrong.",
  reauthenticate: "Type your current password.",
  "passwords-differ": "The two passwords differ.",
};

function notice(props: PageNotice): SafeHtml {
  const lines = [
    ...(props.error ? [errorText[props.error] ?? "Something went wrong."] : []),
    ...(props.reasons ?? []).map((r) => reasonText[r]),
  ];
  return html`${lines.length ? html`<div class="error" role="alert">${lines.map((line) => html`<p>${line}</p>`)}</div>` : ""}${props.note ? html`<p class="note">${props.note}</p>` : ""}`;
}

const csrf = (form: Form) => html`<input type="hidden" name="csrfToken" value="${form.csrfToken}">`;
const newPassword = (label: string) =>
  html`<label class="section-header" for="input-password">${label}</label><input id="input-password" type="password" name="password" autocomplete="new-password" minlength="8" required><label class="section-header" for="input-confirm">Type it again</label><input id="input-confirm" type="password" name="confirm" autocomplete="new-password" required>`;

/** Each page: its title and content. */
export const accountPageContent = {
  signUp(p: Form & PageNotice & { email?: string; signIn: string; forgot: string }) {
    return {
      title: "Create an account",
      content: html`<div class="card account signup"><h1>Create an account</h1>${notice(p)}<form action="${p.action}" method="POST">${csrf(p)}<label class="section-header" for="input-email">E-mail</label><input id="input-email" type="email" name="email" autocomplete="username" value="${p.email ?? ""}" required>${newPassword("Password")}<button id="submitButton" type="submit">Create account</button></form><p><a href="${p.signIn}">Sign in</a> · <a href="${p.forgot}">Forgot your password?</a></p></div>`,
    };
  },
  checkEmail(p: Form & PageNotice) {
    return {
      title: "Check your e-mail",
      content: html`<div class="card account check-email"><h1>Check your e-mail</h1>${notice(p)}<p>We sent a message to the address you gave. Type its code here, or open its link.</p><form action="${p.action}" method="POST">${csrf(p)}<label class="section-header" for="input-code">Code</label><input id="input-code" type="text" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 -]*" maxlength="12" required autofocus><button id="submitButton" type="submit">Confirm my address</button></form></div>`,
    };
  },
  verifyLink(p: Form & PageNotice & { token: string; email: string; user: string; askPassword: boolean }) {
    return {
      title: "Confirm your address",
      content: html`<div class="card account verify-link"><h1>Confirm ${p.email}</h1>${notice(p)}<form action="${p.action}" method="POST">${csrf(p)}<input type="hidden" name="token" value="${p.token}"><input type="hidden" name="email" value="${p.email}"><input type="hidden" name="user" value="${p.user}">${p.askPassword ? html`<p>Type the password you chose when you signed up.</p><label class="section-header" for="input-password">Password</label><input id="input-password" type="password" name="password" autocomplete="current-password" required>` : ""}<button id="submitButton" type="submit">Confirm my address</button></form></div>`,
    };
  },
  forgot(p: Form & PageNotice & { sent?: boolean }) {
    return {
      title: "Forgot your password?",
      content: p.sent
        ? html`<div class="card account forgot-sent"><h1>Check your e-mail</h1><p>If an account uses this address, a link to choose a new password is on its way. It works once, for a short while.</p></div>`
        : html`<div class="card account forgot"><h1>Forgot your password?</h1>${notice(p)}<form action="${p.action}" method="POST">${csrf(p)}<label class="section-header" for="input-email">E-mail</label><input id="input-email" type="email" name="email" autocomplete="username" required><button id="submitButton" type="submit">Send me a link</button></form></div>`,
    };
  },
  reset(p: Form & PageNotice & { token: string; email: string; user: string }) {
    return {
      title: "Choose a new password",
      content: html`<div class="card account reset"><h1>Choose a new password</h1>${notice(p)}<form action="${p.action}" method="POST">${csrf(p)}<input type="hidden" name="token" value="${p.token}"><input type="hidden" name="email" value="${p.email}"><input type="hidden" name="user" value="${p.user}">${newPassword("New password")}<button id="submitButton" type="submit">Set password</button></form></div>`,
    };
  },
  change(p: Form & PageNotice) {
    return {
      title: "Change your password",
      content: html`<div class="card account change"><h1>Change your password</h1>${notice(p)}<form action="${p.action}" method="POST">${csrf(p)}<label class="section-header" for="input-current">Current password</label><input id="input-current" type="password" name="currentPassword" autocomplete="current-password">${newPassword("New password")}<button id="submitButton" type="submit">Change password</button></form></div>`,
    };
  },
  done(p: { heading: string; text: string; link: { label: string; href: string } }) {
    return {
      title: p.heading,
      content: html`<div class="card account done"><h1>${p.heading}</h1><p>${p.text}</p><p><a id="continue" href="${p.link.href}">${p.link.label}</a></p></div>`,
    };
  },
};

/** The name of each account page. */
export type AccountPageName = keyof typeof accountPageContent;
