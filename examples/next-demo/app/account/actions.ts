"use server";
// The second factor, enrolled by the signed-in user through server actions calling the
// functions of @latchkey/core/second-factor with the same configuration.
import { confirmTotpEnrolment, disableTotp, startTotpEnrolment } from "@latchkey/core/second-factor";
import { auth, authConfig } from "../../lib/auth";

export interface TotpState {
  secret?: string;
  qrSvg?: string;
  backupCodes?: string[];
  message?: string;
}

const messages = {
  invalid: "That code was not accepted. Enter the current code from your app, or a backup code.",
  "rate-limited": "Too many attempts. Try again in a few minutes.",
};

async function signedInUser() {
  const session = await auth();
  const id = (session?.user as { id?: string } | undefined)?.id;
  if (!session?.user || !id) throw new Error("Not signed in");
  return { id, label: session.user.email ?? id };
}

export async function startTotp(): Promise<TotpState> {
  const enrolment = await startTotpEnrolment(authConfig, await signedInUser());
  return { secret: enrolment.secret, qrSvg: enrolment.qrSvg };
}

export async function confirmTotp(previous: TotpState, form: FormData): Promise<TotpState> {
  const result = await confirmTotpEnrolment(authConfig, (await signedInUser()).id, form.get("code"));
  if (!result.ok) return { ...previous, message: messages[result.reason] };
  return { backupCodes: result.backupCodes };
}

export async function turnOffTotp(_previous: TotpState, form: FormData): Promise<TotpState> {
  const result = await disableTotp(authConfig, (await signedInUser()).id, form.get("code"));
  if (!result.ok) return { message: messages[result.reason] };
  return { message: "The authenticator app is turned off: signing in asks for no code any more." };
}
