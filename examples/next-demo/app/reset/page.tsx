// The reset link's page: a new password, once. It ends every session of the account and signs no
// one in (sign in with the new password; a second factor is still asked for).
import { resetAction } from "../../lib/account-actions";
import { AccountForm } from "../account-form";

type Query = { token?: string; email?: string; user?: string };

export default async function Reset({ searchParams }: { searchParams: Promise<Query> }) {
  const { token, email, user } = await searchParams;
  if (typeof token !== "string" || typeof email !== "string" || typeof user !== "string")
    return (
      <p>
        This page is opened from the link of a reset e-mail. <a href="/forgot">Ask for one</a>.
      </p>
    );
  return (
    <>
      <h1>Choose a new password</h1>
      <p>
        For <strong>{email}</strong>. Every session of the account ends.
      </p>
      <AccountForm
        id="reset-form"
        action={resetAction}
        submit="Set password"
        fields={[
          { name: "token", label: "", type: "hidden", value: token },
          { name: "email", label: "", type: "hidden", value: email },
          { name: "user", label: "", type: "hidden", value: user },
          { name: "password", label: "New password", type: "password", autoComplete: "new-password" },
          { name: "confirm", label: "New password again", type: "password", autoComplete: "new-password" },
        ]}
      />
    </>
  );
}
