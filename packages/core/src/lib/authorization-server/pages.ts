/**
 * The authorization server's pages, in the built-in pages' style (`lib/pages/`: escaped by
 * construction, no framing, no caching, no resource from elsewhere): consent, the device code
 * form, the sign-out confirmation, and a message page for what cannot be sent back to a client.
 */
import type { Cookie, ResponseInternal, Theme } from "../../shapes/data.js";
import { html } from "../pages/html.js";
import { page } from "../pages/layout.js";

/** What each well-known scope lets a client do, in the user's words. */
const SCOPE_TEXT: Record<string, string> = {
  openid: "Know who you are on this site",
  profile: "See your name and picture",
  email: "See your e-mail address",
  offline_access: "Stay connected when you are not using it",
};

const describe = (scope: string) => (Object.hasOwn(SCOPE_TEXT, scope) && SCOPE_TEXT[scope]) || scope;

/** The consent page: what the client asks for, where the browser goes next, allow or deny. */
export function consentPage(props: {
  theme: Theme;
  cookies: Cookie[];
  clientName: string;
  /** For a client not registered beforehand: the host that vouches for it (its name is its own claim). */
  clientHost?: string | undefined;
  redirectHost: string;
  user: string;
  scopes: string[];
  resources: string[];
  action: string;
  interaction: string;
  csrfToken: string;
  device?: boolean;
}): ResponseInternal {
  const scopes = props.scopes.length
    ? html`<p>It will be able to:</p><ul class="scopes">${props.scopes.map((s) => html`<li>${describe(s)}</li>`)}</ul>`
    : "";
  const resources = props.resources.length
    ? html`<p>at ${props.resources.map((r, i) => html`${i ? ", " : ""}<strong>${r}</strong>`)}.</p>`
    : "";
  const next = props.device
    ? html`<p>Allow only if you started this on a device of yours just now.</p>`
    : html`<p>You will then be sent to <strong>${props.redirectHost}</strong>.</p>`;
  const unverified = props.clientHost
    ? html`<p class="unverified">This application is not registered here: its name is its own claim, vouched for only by <strong>${props.clientHost}</strong>.</p>`
    : "";
  return page({
    title: `Allow ${props.clientName}?`,
    theme: props.theme,
    cookies: props.cookies,
    content: html`<div class="card consent"><h1>Allow <strong>${props.clientName}</strong> to use your account?</h1>${unverified}<p>Signed in as <strong>${props.user}</strong>.</p>${scopes}${resources}${next}<form action="${props.action}" method="POST"><input type="hidden" name="csrfToken" value="${props.csrfToken}"><input type="hidden" name="interaction" value="${props.interaction}"><button id="allowButton" type="submit" name="decision" value="allow">Allow</button><div class="actions"><button id="denyButton" class="provider-button" type="submit" name="decision" value="deny">Deny</button></div></form></div>`,
  });
}

/** The form where a user types the code a device shows (RFC 8628 §3.3). */
export function deviceCodePage(props: {
  theme: Theme;
  cookies: Cookie[];
  action: string;
  csrfToken: string;
  userCode?: string;
  error?: string;
}): ResponseInternal {
  const error = props.error ? html`<div class="error" role="alert"><p>${props.error}</p></div>` : "";
  return page({
    title: "Connect a device",
    theme: props.theme,
    cookies: props.cookies,
    status: props.error ? 400 : 200,
    content: html`<div class="card device"><h1>Connect a device</h1>${error}<p>Enter the code shown on your device.</p><form action="${props.action}" method="POST"><input type="hidden" name="csrfToken" value="${props.csrfToken}"><label for="input-user-code">Code</label><input id="input-user-code" name="user_code" type="text" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="20" value="${props.userCode ?? ""}" required autofocus><button id="submitButton" type="submit">Continue</button></form></div>`,
  });
}

/** The sign-out confirmation of RP-initiated logout (OIDC RP-Initiated Logout §2: the user is asked). */
export function logoutPage(props: {
  theme: Theme;
  cookies: Cookie[];
  action: string;
  csrfToken: string;
  clientName?: string;
  fields: Record<string, string>;
}): ResponseInternal {
  const hidden = Object.entries(props.fields).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
  const from = props.clientName ? html`<p><strong>${props.clientName}</strong> asks to sign you out.</p>` : "";
  return page({
    title: "Sign out",
    theme: props.theme,
    cookies: props.cookies,
    content: html`<div class="card signout"><h1>Sign out everywhere?</h1>${from}<p>This ends your session on this site and on every device.</p><form action="${props.action}" method="POST"><input type="hidden" name="csrfToken" value="${props.csrfToken}">${hidden}<button id="submitButton" type="submit">Sign out</button></form></div>`,
  });
}

/** A page with a heading and a line: errors that cannot go back to a client, and endings. */
export function messagePage(props: {
  theme: Theme;
  title: string;
  text: string;
  status?: number;
  cookies?: Cookie[];
}): ResponseInternal {
  return page({
    title: props.title,
    theme: props.theme,
    status: props.status ?? 200,
    cookies: props.cookies,
    content: html`<div class="card message"><h1>${props.title}</h1><p>${props.text}</p></div>`,
  });
}
