import { randomBytes, randomUUID, scryptSync, timingSafeEqual } from "node:crypto";
import type { Adapter, AdapterUser } from "@latchkey/core/adapters";

/** The seeded account of the demo. */
export const DEMO_USER = { name: "Demo User", email: "demo@example.com", password: "demo-password" };

function hashPassword(password: string): string {
  const salt = randomBytes(16);
  return `${salt.toString("hex")}:${scryptSync(password, salt, 32).toString("hex")}`;
}

function verifyPassword(password: string, stored: string): boolean {
  const [salt, hash] = stored.split(":") as [string, string];
  const expected = Buffer.from(hash, "hex");
  return timingSafeEqual(scryptSync(password, Buffer.from(salt, "hex"), expected.length), expected);
}

// Password hashes by e-mail. A real application keeps them in its own users table; Latchkey's
// adapters store users, accounts and passkeys, never passwords.
const passwords = new Map([[DEMO_USER.email, hashPassword(DEMO_USER.password)]]);

// Verifying against this when the address is unknown makes an unknown user cost as much as a
// wrong password, so timing does not tell which one it was.
const decoyHash = hashPassword(randomBytes(16).toString("hex"));

/** Checks an e-mail and password; returns the normalized e-mail when they match, else null. */
export function checkPassword(email: unknown, password: unknown): string | null {
  if (typeof email !== "string" || typeof password !== "string") return null;
  const address = email.trim().toLowerCase();
  const stored = passwords.get(address);
  const ok = verifyPassword(password, stored ?? decoyHash);
  return stored && ok ? address : null;
}

/**
 * Creates the demo user in the store on first start, so that signing in with its password, a
 * magic link to its address or a passkey all lead to the same user.
 */
export async function seedDemoUser(adapter: Adapter): Promise<AdapterUser> {
  const existing = await adapter.getUserByEmail?.(DEMO_USER.email);
  if (existing) return existing;
  const user = { id: randomUUID(), name: DEMO_USER.name, email: DEMO_USER.email, emailVerified: null };
  return (await adapter.createUser?.(user)) ?? user;
}
