/**
 * Password accounts in the demo: sign-up, address verification, forgotten password, reset and
 * change, as Server Actions (`PasswordAccounts` of @latchkey/next/accounts) called by the forms of
 * /signup, /verify, /forgot, /reset and /account/password (lib/account-actions.ts). They send
 * e-mail through the configuration's Nodemailer provider (the start script's mail catcher).
 */
import { PasswordAccounts, type PasswordAccountsOptions } from "@latchkey/next/accounts";
import { authConfig } from "./auth";
import { passwords } from "./passwords";

const options: PasswordAccountsOptions = {
  passwords,
  // Have I Been Pwned's range API (5 hex characters of the SHA-1 leave the process); off with
  // DEMO_BREACHED_CHECK=off for a machine without internet (an unanswered check lets it through).
  breached: process.env.DEMO_BREACHED_CHECK === "off" ? false : { timeoutMs: 2000 },
  // The pages the e-mails link to.
  urls: { verify: "/verify", reset: "/reset", signIn: "/login", signUp: "/signup" },
};

export const accounts = PasswordAccounts(authConfig, options);

/** Whether the demo can send e-mail (the pages say so instead of failing). */
export const canSendMail = () => Boolean(process.env.DEMO_SMTP_PORT || process.env.EMAIL_SERVER);
