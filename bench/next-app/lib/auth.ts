/**
 * The two libraries side by side, each configured as the other: the same credentials provider,
 * the same secret (AUTH_SECRET), JWT sessions. BENCH_NEXT_AUTH picks the one this server runs
 * ("latchkey" or "nextauth"; "none" for the bare server, which never calls it).
 */
import LatchkeyNextAuth from "@latchkey/next";
import LatchkeyCredentials from "@latchkey/next/providers/credentials";
import NextAuth from "next-auth";
import NextAuthCredentials from "next-auth/providers/credentials";

const credentials = {
  username: { label: "Username" },
  password: { label: "Password", type: "password" },
};
const authorize = async (input: Partial<Record<string, unknown>>) =>
  input.username === "ada" && input.password === "lovelace"
    ? { id: "u1", name: "Ada Lovelace", email: "ada@example.com" }
    : null;

// Errors the library logged, counted where the bench server (bench/next-server.mjs) reads them:
// a run that logged any fails.
const counter = globalThis as { __benchLoggedErrors?: number };
const logger = {
  error() {
    counter.__benchLoggedErrors = (counter.__benchLoggedErrors ?? 0) + 1;
  },
  warn() {},
  debug() {},
};

function pick() {
  const which = process.env.BENCH_NEXT_AUTH;
  if (which === "latchkey") {
    return LatchkeyNextAuth({
      trustHost: true,
      logger,
      providers: [LatchkeyCredentials({ credentials, authorize })],
      // Raised, not turned off (as in the Express bench): the sign-in still pays for the counting.
      rateLimit: {
        credentialsPerIp: { max: 1e12, windowSeconds: 900 },
        credentialsPerIdentifierAndIp: { max: 1e12, windowSeconds: 900 },
        credentialsPerIdentifier: { max: 1e12, windowSeconds: 900 },
      },
    });
  }
  if (which === "nextauth") {
    return NextAuth({ trustHost: true, logger, providers: [NextAuthCredentials({ credentials, authorize })] });
  }
  return undefined;
}

const chosen = pick();
export const handlers = chosen?.handlers;
export const auth = chosen?.auth;
