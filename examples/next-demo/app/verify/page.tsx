// Proves the address of a sign-up: the code from the e-mail, typed in the browser that signed up,
// or the e-mail's link (opened in another browser, it also asks for the account's password).
import { verifyAction } from "../../lib/account-actions";
import { AccountForm } from "../account-form";

type Query = { token?: string; email?: string; user?: string; sent?: string };

export default async function Verify({ searchParams }: { searchParams: Promise<Query> }) {
  const { token, email, user, sent } = await searchParams;
  const password = { name: "password", label: "Password", type: "password", autoComplete: "current-password" } as const;
  if (typeof token === "string" && typeof email === "string" && typeof user === "string") {
    // A GET spends nothing (mail scanners open links): the button posts the link's fields.
    return (
      <>
        <h1>Confirm your e-mail address</h1>
        <p>
          Confirm <strong>{email}</strong> for your new account.
        </p>
        <AccountForm
          id="verify-link-form"
          action={verifyAction}
          submit="Confirm"
          fields={[
            { name: "token", label: "", type: "hidden", value: token },
            { name: "email", label: "", type: "hidden", value: email },
            { name: "user", label: "", type: "hidden", value: user },
          ]}
          passwordField={password}
        />
      </>
    );
  }
  return (
    <>
      <h1>Check your e-mail</h1>
      {sent ? <p id="verify-sent">We sent an e-mail with a code and a link to the address you gave.</p> : null}
      <AccountForm
        id="verify-code-form"
        action={verifyAction}
        submit="Confirm"
        fields={[{ name: "code", label: "Six-digit code", type: "text", autoComplete: "one-time-code" }]}
      />
    </>
  );
}
