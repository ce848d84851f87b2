/**
 * `@auth/prisma-adapter` (Prisma 7, its client generated offline from prisma/schema.prisma by the
 * fixture, on PostgreSQL through `@prisma/adapter-pg`) under Latchkey, unchanged: the sign-in
 * flows, and the conformance suite with Latchkey's extensions marked absent. Prisma refuses a
 * field its schema lacks and throws for an update or delete of a missing row; the cases below
 * say where Latchkey's core never asks that of it, or tolerates the refusal.
 */
import { prismaAdapterFixture } from "./databases.js";
import { runAuthjsAdapter } from "./flows.js";

await runAuthjsAdapter(
  "@auth/prisma-adapter",
  prismaAdapterFixture,
  { users: `"User"`, accounts: `"Account"`, sessions: `"Session"`, verificationTokens: `"VerificationToken"` },
  {
    conformanceName: "prisma",
    notApplicable: {
      "reads back an account without tokens without inventing fields":
        "it answers null for the token columns an account lacks, which Latchkey reads as absent",
      "accepts token fields beyond the standard ones and keeps the standard ones":
        "it refuses a field its schema lacks; Latchkey stores Auth.js's default account fields unless a provider's own account() returns more, as Auth.js does",
      "unlinkAccount of a missing account does not throw":
        "it throws for a missing row; Latchkey unlinks only through listAccounts, which it lacks",
      "updateSession of a missing session returns nothing and stores nothing":
        "it throws for a missing row; Latchkey then reads the session back and, gone, treats it as signed out (see the flows above)",
      "deleteSession removes one session and keeps the user's others":
        "it throws for a missing row (the last step); Latchkey then reads the session back and, gone, treats it as signed out (see the flows above)",
      "getSessionAndUser, updateSession: session tokens":
        "updateSession throws for a missing row; Latchkey then reads the session back and, gone, treats it as signed out (see the flows above)",
      "updateSession racing deleteSession, 100 sessions at once: every deleted session stays deleted":
        "updateSession and deleteSession throw for a missing row; the flows above race reads with a sign-out through Latchkey",
      "of a missing user does not throw": "it throws for a missing row; Latchkey never deletes users",
      "updateAuthenticatorCounter stores the new counter, up to 2^32 - 1":
        "its schema's counter column is an Int, a 32-bit signed integer, up to 2^31 - 1",
    },
  },
);
