"use server";
// The Server Actions of the password-account forms: each hands the form to @latchkey/next/accounts
// and turns its answer into what the page shows, or a redirect. Latchkey checks the request first:
// an action posted from another site or origin throws MissingCSRF (Next.js shows its error page).
import { redirect } from "next/navigation";
import { accounts } from "./accounts";

export interface AccountFormState {
  error?: string;
  notice?: string;
  /** The verification link was opened in another browser: the form asks for the password. */
  askPassword?: boolean;
}

const reasons: Record<string, string> = {
  invalid: "text",
  "too-short": "at least 8 characters",
  "too-long": "shorter",
  "control-character": "no control characters",
  identifier: "not your e-mail address or name",
  "context-word": "not the name of this site",
};

/** What a refusal of the core reads as on the page. */
function message(result: { error: string; reasons?: string[]; retryAfter?: number }): string {
  switch (result.error) {
    case "invalid-email":
      return "That is not an e-mail address.";
    case "weak-password":
      return `Choose another password: ${(result.reasons ?? []).map((r) => reasons[r] ?? r).join(", ")}.`;
    case "breached-password":
      return "This password appears in known data breaches: choose another.";
    case "rate-limited":
      return `Too many attempts: try again in ${Math.ceil((result.retryAfter ?? 60) / 60)} minute(s).`;
    case "invalid":
      return "This code or link does not work (wrong, used or expired).";
    case "invalid-token":
      return "This reset link does not work (used, expired or replaced by a newer one): ask for a new one.";
    case "wrong-password":
      return "The current password is wrong.";
    case "reauthenticate":
      return "Type your current password.";
    case "signed-out":
      return "You are signed out: sign in again.";
    default:
      return "That did not work.";
  }
}

/** Two new-password fields that must agree (checked here only: a typo is the user's, not an attack). */
function confirmed(form: FormData): boolean {
  return form.get("password") === form.get("confirm");
}

export async function signUpAction(_: AccountFormState, form: FormData): Promise<AccountFormState> {
  if (!confirmed(form)) return { error: "The two passwords differ." };
  const result = await accounts.signUp(form);
  if (!result.ok) return { error: message(result) };
  // Taken or free, the same answer: the e-mail tells the owner which.
  redirect("/verify?sent=1");
}

export async function verifyAction(_: AccountFormState, form: FormData): Promise<AccountFormState> {
  const result = await accounts.verifyEmail(form);
  if (result.ok) redirect("/login?verified=1");
  if (result.error === "password-required")
    return { askPassword: true, notice: "This link was opened in another browser: type the account's password." };
  return { error: message(result), askPassword: form.has("password") };
}

export async function forgotAction(_: AccountFormState, form: FormData): Promise<AccountFormState> {
  const result = await accounts.requestPasswordReset(form);
  if (!result.ok) return { error: message(result) };
  return { notice: "If an account has this address, a link to choose a new password is on its way." };
}

export async function resetAction(_: AccountFormState, form: FormData): Promise<AccountFormState> {
  if (!confirmed(form)) return { error: "The two passwords differ." };
  const result = await accounts.resetPassword(form);
  if (!result.ok) return { error: message(result) };
  redirect("/login?reset=1");
}

export async function changeAction(_: AccountFormState, form: FormData): Promise<AccountFormState> {
  if (!confirmed(form)) return { error: "The two passwords differ." };
  const result = await accounts.changePassword(form);
  if (!result.ok) return { error: message(result) };
  // This browser got its new session (JWT) or kept its own (database); every other one ended.
  redirect(result.signedOut ? "/login?changed=1" : "/account?password=changed");
}
