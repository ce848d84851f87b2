/**
 * Password accounts in the demo: sign-up, address verification, forgotten password, reset and
 * change, served by `PasswordAccounts` of @latchkey/express under /password, and the check the
 * Credentials provider makes at sign-in.
 */
import { MemoryPasswordStore, type PasswordAccountsRouterOptions } from "@latchkey/express";

/**
 * Password hashes by user id (scrypt, `$scrypt$ln=17,r=8,p=1$...`). A real application keeps them
 * in a table of its own next to the adapter's; the demo keeps them in memory, so accounts made by
 * sign-up lose their password when it restarts (the seeded one is set again at start).
 */
export const demoPasswords = new MemoryPasswordStore();

/** Where the pages are mounted, and what they link to. */
export const PASSWORD_PAGES = "/password";

/** The options of the pages and of the sign-in check. */
export function passwordAccounts(env: NodeJS.ProcessEnv = process.env): PasswordAccountsRouterOptions {
  return {
    passwords: demoPasswords,
    // Have I Been Pwned's range API (5 hex characters of the SHA-1 leave the process); off with
    // DEMO_BREACHED_CHECK=off for a machine without internet (an unanswered check lets the password through).
    breached: env.DEMO_BREACHED_CHECK === "off" ? false : { timeoutMs: 2000 },
    urls: { signIn: "/auth/signin" },
  };
}
