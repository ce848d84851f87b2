// The sign-in page: every method through a server action, and passkeys through the built-in page.
import { emailSignIn, idpSignIn } from "./actions";
import { PasswordForm } from "./password-form";

type Query = { callbackUrl?: string; verified?: string; reset?: string; changed?: string };

/** What the password-account pages that land here say. */
function noticeOf({ verified, reset, changed }: Query): string | null {
  if (verified) return "Your e-mail address is confirmed: sign in with your password.";
  if (reset) return "Your password was reset and every session of the account ended: sign in with the new one.";
  if (changed) return "Your password was changed: sign in with the new one.";
  return null;
}

export default async function Login({ searchParams }: { searchParams: Promise<Query> }) {
  const query = await searchParams;
  const { callbackUrl: asked } = query;
  const notice = noticeOf(query);
  const callbackUrl = typeof asked === "string" && asked.startsWith("/") && !asked.startsWith("//") ? asked : "/";
  const builtIn = `/api/auth/signin?callbackUrl=${encodeURIComponent(callbackUrl)}`;
  return (
    <>
      <h1>Sign in</h1>
      {notice ? (
        <p role="status" id="login-notice">
          {notice}
        </p>
      ) : null}
      <fieldset>
        <legend>Password</legend>
        <PasswordForm callbackUrl={callbackUrl} />
        {process.env.DEMO_SMTP_PORT || process.env.EMAIL_SERVER ? (
          <p>
            <a id="signup-link" href="/signup">
              Create an account
            </a>{" "}
            ·{" "}
            <a id="forgot-link" href="/forgot">
              Forgot your password?
            </a>
          </p>
        ) : null}
      </fieldset>
      {process.env.DEMO_IDP_ISSUER ? (
        <fieldset>
          <legend>OpenID Connect</legend>
          <form id="idp-form" action={idpSignIn}>
            <input type="hidden" name="callbackUrl" value={callbackUrl} />
            <button type="submit">Sign in with Demo IdP</button>
          </form>
        </fieldset>
      ) : null}
      {process.env.DEMO_SMTP_PORT || process.env.EMAIL_SERVER ? (
        <fieldset>
          <legend>E-mail link or code</legend>
          <form id="email-form" action={emailSignIn}>
            <input type="hidden" name="callbackUrl" value={callbackUrl} />
            <input name="email" type="email" autoComplete="email" required aria-label="Email" placeholder="Email" />
            <button type="submit">Send me a link</button>
          </form>
        </fieldset>
      ) : null}
      <fieldset>
        <legend>Passkey</legend>
        <p>
          <a id="builtin-signin" href={builtIn}>
            Sign in with a passkey
          </a>{" "}
          on Latchkey&apos;s built-in page (it has every method too).
        </p>
      </fieldset>
    </>
  );
}
