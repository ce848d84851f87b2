import type { CredentialInput } from "../../providers/credentials.js";
import { fieldOf, textOf } from "../base/merge.js";
import type { InternalProvider } from "../config/types.js";
import { html, type SafeHtml, safeColor, safeImageUrl } from "./html.js";

/** What the sign-in page says for each `?error=` value (spec §7.2). */
const messages: Record<string, string> = {
  Signin: "Try signing in with a different account.",
  OAuthSignin: "The sign-in with this provider could not be started. Try again, or use another account.",
  OAuthCallbackError: "The provider's answer could not be accepted. Try again, or use another account.",
  OAuthCreateAccount: "An account could not be created with this provider. Try another account.",
  EmailCreateAccount: "An account could not be created with this e-mail address.",
  Callback: "The sign-in could not be completed. Try again.",
  OAuthAccountNotLinked:
    "This e-mail address is already used by another sign-in method. Sign in the way you did before.",
  EmailSignin: "The sign-in e-mail could not be sent. Try again later.",
  CredentialsSignin: "Sign-in failed. Check the details you entered.",
  SessionRequired: "Please sign in to see this page.",
  MissingCSRF: "The form expired. Please try again.",
  RateLimited: "Too many attempts. Wait a few minutes and try again.",
  AccountNotLinked: "This passkey is not linked to an account.",
  WebAuthnVerificationError: "The passkey could not be verified. Try again.",
};
const fallbackMessage = "Sign-in failed. Try again.";

export interface SigninPageProps {
  providers: readonly InternalProvider[];
  authUrl: string;
  csrfToken: string;
  callbackUrl: string;
  error?: string;
  email?: string;
}

function field(providerId: string, name: string, spec: CredentialInput): SafeHtml {
  const id = `input-${name}-for-${providerId}-provider`;
  const { label, type, placeholder, ...rest } = spec;
  // Other attributes of the field (required, autocomplete, pattern, ...) pass through, escaped;
  // event handlers and the reserved ones are dropped.
  const extra = Object.entries(rest)
    .filter(
      ([key, value]) =>
        /^[a-zA-Z][a-zA-Z-]*$/.test(key) &&
        !/^(on|name$|id$|value$|form)/i.test(key) &&
        ["string", "number", "boolean"].includes(typeof value),
    )
    .map(([key, value]) => (value === true ? html` ${key}` : value === false ? "" : html` ${key}="${String(value)}"`));
  return html`<label for="${id}">${label ?? name}</label><input name="${name}" id="${id}" type="${type ?? "text"}" placeholder="${placeholder ?? ""}"${extra}>`;
}

function buttonStyle(p: InternalProvider): string {
  const style = fieldOf(p, "style");
  const bg = safeColor(textOf(fieldOf(style, "bg")) ?? textOf(fieldOf(style, "brandColor")));
  const text = safeColor(textOf(fieldOf(style, "text")));
  return [bg ? `--btn-bg:${bg}` : "", text ? `--btn-text:${text}` : ""].filter(Boolean).join(";");
}

/** The sign-in page: a button per OAuth provider, a form per e-mail and credentials provider. */
export function signinPage(props: SigninPageProps): { title: string; content: SafeHtml } {
  const { providers, authUrl, csrfToken, callbackUrl, error } = props;
  const hidden = html`<input type="hidden" name="csrfToken" value="${csrfToken}"><input type="hidden" name="callbackUrl" value="${callbackUrl}">`;
  const buttons: SafeHtml[] = [];
  const forms: SafeHtml[] = [];
  let webauthnScript: SafeHtml | "" = "";
  // The first form's button keeps Auth.js's id ("submitButton"); later ones get the provider id
  // appended, so ids stay unique when a page has several forms.
  const submitId = (providerId: string) => (forms.length === 0 ? "submitButton" : `submitButton-${providerId}`);
  for (const p of providers) {
    if (p.type === "oauth" || p.type === "oidc") {
      const logo = safeImageUrl(textOf(fieldOf(fieldOf(p, "style"), "logo")));
      const style = buttonStyle(p);
      buttons.push(
        html`<div class="provider"><form action="${authUrl}/signin/${p.id}" method="POST">${hidden}<button type="submit" class="provider-button"${style ? html` style="${style}"` : ""}>${logo ? html`<img src="${logo}" alt="" loading="lazy">` : ""}<span>Sign in with ${p.name}</span></button></form></div>`,
      );
    } else if (p.type === "email") {
      const id = `input-email-for-${p.id}-provider`;
      // Labelled by its method: beside a password's or a passkey's e-mail field it is not just "Email".
      const codes = p.code !== undefined && p.code !== false;
      const label =
        p.link === false
          ? "Email for a sign-in code"
          : codes
            ? "Email for a sign-in link or code"
            : "Email for a sign-in link";
      forms.push(
        html`<div class="provider"><form action="${authUrl}/signin/${p.id}" method="POST">${hidden}<label for="${id}">${label}</label><input id="${id}" type="email" name="email" value="${props.email ?? ""}" placeholder="email@example.com" autocomplete="email" required><button id="${submitId(p.id)}" type="submit">Sign in with ${p.name}</button></form></div>`,
      );
    } else if (p.type === "credentials") {
      const fields = Object.entries(p.credentials).map(([name, spec]) => field(p.id, name, spec ?? {}));
      forms.push(
        html`<div class="provider"><form action="${authUrl}/callback/${p.id}" method="POST">${hidden}${fields}<button id="${submitId(p.id)}" type="submit">Sign in with ${p.name}</button></form></div>`,
      );
    } else if (p.type === "webauthn") {
      // Driven by the WebAuthn script (served from our own origin: the CSP allows no inline code).
      const fields = Object.entries(p.formFields).map(([name, spec]) => field(p.id, name, spec ?? {}));
      forms.push(
        html`<div class="provider"><form id="${p.id}-form" action="${authUrl}/callback/${p.id}" method="POST" data-webauthn-options="${authUrl}/webauthn-options/${p.id}"${p.enableConditionalUI ? html` data-webauthn-conditional` : ""}>${hidden}<input type="hidden" name="action" value=""><input type="hidden" name="data" value="">${fields}<div class="error" role="alert" data-webauthn-error hidden></div><button id="${submitId(p.id)}" type="submit">Sign in with ${p.name}</button></form></div>`,
      );
      webauthnScript = html`<script src="${authUrl}/webauthn-script.js" defer></script>`;
    }
  }
  const divider = buttons.length && forms.length ? html`<div class="divider">or</div>` : "";
  const errorBox = error
    ? html`<div class="error" role="alert"><p>${(Object.hasOwn(messages, error) && messages[error]) || fallbackMessage}</p></div>`
    : "";
  const empty = buttons.length + forms.length === 0 ? html`<p>No sign-in method is configured.</p>` : "";
  return {
    title: "Sign in",
    // Each form is its own way in: a divider between them keeps fields with their button.
    content: html`<div class="card signin"><h1>Sign in</h1>${errorBox}${buttons}${divider}${forms.flatMap((form, i) => (i ? [html`<div class="divider">or</div>`, form] : [form]))}${empty}</div>${webauthnScript}`,
  };
}
