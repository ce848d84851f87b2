// Sign-up with a password: the address is unproven until the mailed code (or link) proves it.

import { signUpAction } from "../../lib/account-actions";
import { canSendMail } from "../../lib/accounts";
import { AccountForm } from "../account-form";

export default function SignUp() {
  if (!canSendMail()) return <p>Sign-up sends an e-mail: set EMAIL_SERVER (the start script runs a mail catcher).</p>;
  return (
    <>
      <h1>Create an account</h1>
      <AccountForm
        id="signup-form"
        action={signUpAction}
        submit="Create account"
        fields={[
          { name: "email", label: "Email", type: "email", autoComplete: "email" },
          { name: "password", label: "Password", type: "password", autoComplete: "new-password" },
          { name: "confirm", label: "Password again", type: "password", autoComplete: "new-password" },
        ]}
      />
      <p>
        Have an account? <a href="/login">Sign in</a>. Forgot its password? <a href="/forgot">Reset it</a>.
      </p>
    </>
  );
}
