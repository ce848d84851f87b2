import type { Adapter, AdapterUser } from "@latchkey/core/adapters";
import { dummyVerify, hashPassword, needsRehash, verifyPassword } from "@latchkey/core/password";

/** The seeded account of the demo. */
export const DEMO_USER = { name: "Demo User", email: "demo@example.com", password: "demo-password" };

// Password hashes by e-mail (scrypt, `$scrypt$ln=17,r=8,p=1$...`). A real application keeps them
// in its own users table; Latchkey's adapters store users, accounts and passkeys, never
// passwords. The seeded hash is computed once, off the event loop, by the first check: nothing
// runs when the module loads (a Worker may not make random values at global scope).
let passwords: Map<string, Promise<string>> | undefined;

/** Checks an e-mail and password; resolves to the normalized e-mail when they match, else null. */
export async function checkPassword(email: unknown, password: unknown): Promise<string | null> {
  if (typeof email !== "string" || typeof password !== "string") return null;
  const address = email.trim().toLowerCase();
  passwords ??= new Map([[DEMO_USER.email, hashPassword(DEMO_USER.password)]]);
  const stored = await passwords.get(address);
  if (!stored) {
    // An unknown address costs what a wrong password costs: timing does not tell which it was.
    await dummyVerify(password);
    return null;
  }
  if (!(await verifyPassword(password, stored))) return null;
  // Hashes made with weaker parameters than today's are upgraded while the password is at hand.
  if (needsRehash(stored)) passwords.set(address, hashPassword(password));
  return address;
}

/**
 * Creates the demo user in the store on first start, so that signing in with its password, a
 * magic link to its address or a passkey all lead to the same user.
 */
export async function seedDemoUser(adapter: Adapter): Promise<AdapterUser> {
  const existing = await adapter.getUserByEmail?.(DEMO_USER.email);
  if (existing) return existing;
  // The operator seeds this address and owns its mailbox: it counts as proven, so a sign-in that
  // proves it (a magic link, the Demo IdP) reaches this user. An unproven holder would not be
  // merged into (docs/security.md, "Identity").
  const user = { id: crypto.randomUUID(), name: DEMO_USER.name, email: DEMO_USER.email, emailVerified: new Date() };
  return (await adapter.createUser?.(user)) ?? user;
}
