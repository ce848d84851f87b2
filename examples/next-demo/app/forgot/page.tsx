// A forgotten password: the same answer for every address; an account's owner gets a reset link.

import { forgotAction } from "../../lib/account-actions";
import { canSendMail } from "../../lib/accounts";
import { AccountForm } from "../account-form";

export default function Forgot() {
  if (!canSendMail()) return <p>A reset sends an e-mail: set EMAIL_SERVER (the start script runs a mail catcher).</p>;
  return (
    <>
      <h1>Forgot your password?</h1>
      <AccountForm
        id="forgot-form"
        action={forgotAction}
        submit="Send me a link"
        fields={[{ name: "email", label: "Email", type: "email", autoComplete: "email" }]}
      />
    </>
  );
}
