// Change of password while signed in: the current one is asked for; every other session of the
// user ends and this browser stays signed in.
import { redirect } from "next/navigation";
import { changeAction } from "../../../lib/account-actions";
import { auth } from "../../../lib/auth";
import { AccountForm } from "../../account-form";

export default async function ChangePassword() {
  const session = await auth();
  if (!session?.user) redirect("/login?callbackUrl=%2Faccount%2Fpassword");
  return (
    <>
      <h1>Change your password</h1>
      <p>Your other sessions end; this browser stays signed in.</p>
      <AccountForm
        id="change-form"
        action={changeAction}
        submit="Change password"
        fields={[
          { name: "currentPassword", label: "Current password", type: "password", autoComplete: "current-password" },
          { name: "password", label: "New password", type: "password", autoComplete: "new-password" },
          { name: "confirm", label: "New password again", type: "password", autoComplete: "new-password" },
        ]}
      />
    </>
  );
}
