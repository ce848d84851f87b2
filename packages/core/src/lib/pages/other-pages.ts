import { html, type SafeHtml } from "./html.js";

/** The sign-out confirmation page: one button that POSTs the CSRF token. */
export function signoutPage(props: { authUrl: string; csrfToken: string; callbackUrl?: string }): {
  title: string;
  content: SafeHtml;
} {
  return {
    title: "Sign out",
    content: html`<div class="card signout"><h1>Sign out</h1><p>Are you sure you want to sign out?</p><form action="${props.authUrl}/signout" method="POST"><input type="hidden" name="csrfToken" value="${props.csrfToken}">${props.callbackUrl ? html`<input type="hidden" name="callbackUrl" value="${props.callbackUrl}">` : ""}<button id="submitButton" type="submit">Sign out</button></form></div>`,
  };
}

/** The code form of the verify-request page: where it posts, its CSRF token, the code's length. */
export interface CodeForm {
  action: string;
  csrfToken: string;
  length: number;
  /** The last code was refused. */
  error?: boolean;
  /** The e-mail has no link, only the code. */
  codeOnly?: boolean;
}

/**
 * The page shown after a sign-in e-mail was sent; with `code`, a form to type the mailed code
 * (posted with the CSRF token to the e-mail provider's callback).
 */
export function verifyRequestPage(props: { origin: string; code?: CodeForm }): { title: string; content: SafeHtml } {
  const host = new URL(props.origin).host;
  const { code } = props;
  const sent = code
    ? code.codeOnly
      ? "A sign-in code has been sent to your e-mail address."
      : "A sign-in code and link have been sent to your e-mail address."
    : "A sign-in link has been sent to your e-mail address.";
  const form = code
    ? html`${code.error ? html`<div class="error"><p>That code is not valid. It may be mistyped, used or expired; after too many tries, ask for a new e-mail.</p></div>` : ""}<form class="email-code" action="${code.action}" method="POST"><input type="hidden" name="csrfToken" value="${code.csrfToken}"><label class="section-header" for="input-email-code">Sign-in code</label><input id="input-email-code" type="text" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]*" minlength="${code.length}" maxlength="${code.length}" required autofocus><button id="submitButton" type="submit">Sign in with code</button></form>`
    : "";
  return {
    title: "Check your e-mail",
    content: html`<div class="card verify-request"><h1>Check your e-mail</h1><p>${sent}</p>${form}<p><a class="site" href="${props.origin}">${host}</a></p></div>`,
  };
}

/**
 * The page a magic link shows when it is opened in a browser other than the one that asked for it
 * (another device, a mail scanner, a page that sent the browser there): it names the address and
 * signs in only when its button POSTs the CSRF token. Opening it spends nothing.
 */
export function confirmLinkPage(props: {
  action: string;
  csrfToken: string;
  email: string;
  token: string;
  callbackUrl: string;
}): { title: string; content: SafeHtml } {
  return {
    title: "Confirm sign-in",
    content: html`<div class="card verify-request"><h1>Sign in as ${props.email}?</h1><p>This sign-in link was opened in a browser other than the one that asked for it. Continue only if you asked for it and want to be signed in as <strong>${props.email}</strong> here.</p><form class="confirm-link" action="${props.action}" method="POST"><input type="hidden" name="csrfToken" value="${props.csrfToken}"><input type="hidden" name="token" value="${props.token}"><input type="hidden" name="email" value="${props.email}"><input type="hidden" name="callbackUrl" value="${props.callbackUrl}"><button id="submitButton" type="submit">Sign in as ${props.email}</button></form></div>`,
  };
}

const errorPages: Record<
  string,
  { status: number; heading: string; text: string[]; signin?: boolean; signout?: boolean }
> = {
  Configuration: {
    status: 500,
    heading: "Server error",
    text: ["There is a problem with the server configuration.", "Check the server logs for more information."],
  },
  AccessDenied: {
    status: 403,
    heading: "Access denied",
    text: ["You do not have permission to sign in."],
    signin: true,
  },
  Verification: {
    status: 403,
    heading: "Unable to sign in",
    text: ["The sign-in link is no longer valid.", "It may have been used already or it may have expired."],
    signin: true,
  },
  SignOutError: {
    status: 503,
    heading: "Sign-out did not complete",
    text: [
      "The server could not confirm that your session ended, so it may still be active.",
      "Sign out again in a moment.",
    ],
    signout: true,
  },
};

/** The error page (spec §7.2): a known `error` gets its own text and status, anything else a generic page. */
export function errorPage(props: { authUrl: string; origin: string; error?: string }): {
  title: string;
  status: number;
  content: SafeHtml;
} {
  // Own keys only: `?error=constructor` must not find Object.prototype's constructor.
  const known = props.error && Object.hasOwn(errorPages, props.error) ? errorPages[props.error] : undefined;
  const heading = known?.heading ?? "Error";
  const body = known
    ? known.text.map((t) => html`<p>${t}</p>`)
    : html`<p><a class="site" href="${props.origin}">${new URL(props.origin).host}</a></p>`;
  const signin = known?.signin
    ? html`<div class="actions"><a class="button" href="${props.authUrl}/signin">Sign in</a></div>`
    : known?.signout
      ? html`<div class="actions"><a class="button" href="${props.authUrl}/signout">Sign out</a></div>`
      : "";
  return {
    title: heading,
    status: known?.status ?? 200,
    content: html`<div class="card error-page"><h1>${heading}</h1>${body}${signin}</div>`,
  };
}
