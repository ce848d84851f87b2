import { html, type SafeHtml } from "./html.js";

/** What the code page says for each `?error=`: never which check refused the code. */
const messages: Record<string, string> = {
  CredentialsSignin: "That code was not accepted. Enter the current code from your app, or a backup code.",
  RateLimited: "Too many attempts. Sign in again in a few minutes.",
  MissingCSRF: "The form expired. Please try again.",
};

/** The built-in page asking for the second factor: a six-digit code or a backup code. */
export function secondFactorPage(props: { action: string; csrfToken: string; providerName: string; error?: string }): {
  title: string;
  content: SafeHtml;
} {
  const { error } = props;
  const errorBox = error
    ? html`<div class="error" role="alert"><p>${(Object.hasOwn(messages, error) && messages[error]) || "That code was not accepted."}</p></div>`
    : "";
  return {
    title: "Two-step verification",
    content: html`<div class="card signin"><h1>Two-step verification</h1>${errorBox}<div class="provider"><form action="${props.action}" method="POST"><input type="hidden" name="csrfToken" value="${props.csrfToken}"><label for="input-code">Code from your ${props.providerName}, or a backup code</label><input id="input-code" name="code" type="text" inputmode="text" autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" maxlength="20" required autofocus><button id="submitButton" type="submit">Verify</button></form></div></div>`,
  };
}
