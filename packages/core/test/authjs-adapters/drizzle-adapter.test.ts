/**
 * `@auth/drizzle-adapter` (PostgreSQL, its default tables) under Latchkey, unchanged: the sign-in
 * flows, and the conformance suite with Latchkey's extensions marked absent.
 */
import { drizzleAdapterFixture } from "./databases.js";
import { runAuthjsAdapter } from "./flows.js";

await runAuthjsAdapter(
  "@auth/drizzle-adapter",
  drizzleAdapterFixture,
  { users: `"user"`, accounts: "account", sessions: "session", verificationTokens: `"verificationToken"` },
  {
    conformanceName: "drizzle",
    notApplicable: {
      "reads back an account without tokens without inventing fields":
        "it answers null for the token columns an account lacks, which Latchkey reads as absent",
      "updateAuthenticatorCounter stores the new counter, up to 2^32 - 1":
        "its schema's counter column is a 32-bit signed integer, up to 2^31 - 1",
    },
  },
);
