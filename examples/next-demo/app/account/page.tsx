// The account page: the session auth() returns, and the second factor. Checked here (not by the
// proxy) to show both ways: without a session, off to the sign-in page.
import { secondFactorStatus } from "@latchkey/core/second-factor";
import { redirect } from "next/navigation";
import { auth, authConfig, type DemoSession } from "../../lib/auth";
import { TotpOff, TotpSetup } from "./totp";

export default async function Account({ searchParams }: { searchParams: Promise<{ password?: string }> }) {
  const session = (await auth()) as DemoSession | null;
  if (!session?.user?.id) redirect("/login?callbackUrl=%2Faccount");
  const { password } = await searchParams;
  const status = await secondFactorStatus(authConfig, session.user.id);
  return (
    <>
      <h1>Account</h1>
      <h2>Session</h2>
      <p>
        What <code>auth()</code> returns:
      </p>
      <pre id="session">{JSON.stringify(session, null, 2)}</pre>
      <h2>Password</h2>
      {password === "changed" ? (
        <p role="status" id="password-changed">
          Your password was changed; your other sessions ended.
        </p>
      ) : null}
      <p>
        <a id="change-password" href="/account/password">
          Change your password
        </a>
      </p>
      <h2>Two-step verification</h2>
      {status.active ? (
        <>
          <p id="totp-status">
            Authenticator app: <strong>on</strong>. <span id="backup-codes-left">{status.backupCodesLeft}</span> backup
            code(s) left.
          </p>
          <p>Turn it off with a current code (or a backup code):</p>
          <TotpOff />
        </>
      ) : (
        <>
          <p id="totp-status">
            Authenticator app: <strong>off</strong>.
          </p>
          <TotpSetup />
        </>
      )}
    </>
  );
}
