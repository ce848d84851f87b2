"use client";
import { useActionState } from "react";
import { confirmTotp, startTotp, type TotpState, turnOffTotp } from "./actions";

export function TotpSetup() {
  const [started, start, starting] = useActionState<TotpState>(startTotp, {});
  const [confirmed, confirm, confirming] = useActionState<TotpState, FormData>(confirmTotp, {});
  if (confirmed.backupCodes) {
    return (
      <>
        <p>
          Keep these backup codes somewhere safe. Each one signs you in once without the app; they are not shown again.
        </p>
        <ol className="codes" id="backup-codes">
          {confirmed.backupCodes.map((code) => (
            <li key={code}>
              <code>{code}</code>
            </li>
          ))}
        </ol>
        <p>
          <a className="button" href="/account">
            Done
          </a>
        </p>
      </>
    );
  }
  if (!started.secret) {
    return (
      <form id="totp-start" action={start}>
        <button type="submit" disabled={starting}>
          Set up an authenticator app
        </button>
      </form>
    );
  }
  return (
    <>
      <p>Scan this code with an authenticator app, or type the key by hand.</p>
      {/* An SVG made by Latchkey in this process: the secret goes to no other service. */}
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: Latchkey's own QR SVG, no user input */}
      <p className="qr" id="totp-qr" dangerouslySetInnerHTML={{ __html: started.qrSvg ?? "" }} />
      <p>
        Key: <code id="totp-secret">{started.secret}</code>
      </p>
      <form id="totp-confirm" action={confirm}>
        <input name="code" inputMode="numeric" autoComplete="one-time-code" required aria-label="Code" />
        <button type="submit" disabled={confirming}>
          Turn on
        </button>
      </form>
      {confirmed.message ? (
        <p className="alert" role="alert" id="totp-message">
          {confirmed.message}
        </p>
      ) : null}
    </>
  );
}

export function TotpOff() {
  const [state, action, pending] = useActionState<TotpState, FormData>(turnOffTotp, {});
  return (
    <form id="totp-disable" action={action}>
      <input name="code" autoComplete="one-time-code" required aria-label="Code" />
      <button type="submit" disabled={pending}>
        Turn off
      </button>
      {state.message ? (
        <p className="alert" role="alert" id="totp-message">
          {state.message}
        </p>
      ) : null}
    </form>
  );
}
