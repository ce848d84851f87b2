"use server";
// Server actions of the sign-in page. signIn redirects with Next.js's own redirect (thrown, so it
// is re-thrown below); a wrong password throws CredentialsSignin to the caller instead.
import { AuthError, CredentialsSignin } from "@latchkey/next";
import { signIn } from "../../lib/auth";

/** Only a path of this site: never an open redirect. */
function localPath(value: FormDataEntryValue | null): string {
  return typeof value === "string" && value.startsWith("/") && !value.startsWith("//") ? value : "/";
}

export interface PasswordState {
  error?: string;
  /** The address typed, kept in the form after a failure (React resets a form after its action). */
  email?: string;
}

export async function passwordSignIn(_previous: PasswordState, form: FormData): Promise<PasswordState> {
  const email = String(form.get("email") ?? "").slice(0, 320);
  try {
    await signIn("credentials", {
      email: form.get("email"),
      password: form.get("password"),
      redirectTo: localPath(form.get("callbackUrl")),
    });
    return {};
  } catch (error) {
    if (error instanceof CredentialsSignin) return { error: "Wrong e-mail or password.", email };
    if (error instanceof AuthError) return { error: `Sign-in failed (${error.type}).`, email };
    throw error; // Next.js's redirect
  }
}

export async function idpSignIn(form: FormData): Promise<void> {
  await signIn("demo-idp", { redirectTo: localPath(form.get("callbackUrl")) });
}

export async function emailSignIn(form: FormData): Promise<void> {
  await signIn("nodemailer", { email: form.get("email"), redirectTo: localPath(form.get("callbackUrl")) });
}
