/**
 * `@auth/drizzle-adapter` (PostgreSQL, its default tables) under Latchkey, unchanged: the sign-in
 * flows, and the conformance suite with Latchkey's extensions marked absent.
 */
import { runAdapterConformance } from "../../../adapter-test/src/index.js";
import { serviceAvailable } from "../../../adapter-test/src/services.js";
import { drizzleAdapterFixture } from "./databases.js";
import { AUTHJS_CORE_RULES, LATCHKEY_EXTENSIONS, runLatchkeyFlows } from "./flows.js";

const postgresUp = await serviceAvailable("PostgreSQL", 5432);

if (postgresUp)
  runLatchkeyFlows("@auth/drizzle-adapter", drizzleAdapterFixture, {
    users: `"user"`,
    accounts: "account",
    sessions: "session",
    verificationTokens: `"verificationToken"`,
  });

runAdapterConformance(
  "drizzle",
  async () => {
    const { adapter, probe, teardown } = await drizzleAdapterFixture();
    return { adapter, db: probe, teardown };
  },
  {
    skip: !postgresUp,
    authjs: {
      absent: [...LATCHKEY_EXTENSIONS],
      notApplicable: {
        ...AUTHJS_CORE_RULES,
        "reads back an account without tokens without inventing fields":
          "it answers null for the token columns an account lacks, which Latchkey reads as absent",
        "updateAuthenticatorCounter stores the new counter, up to 2^32 - 1":
          "its schema's counter column is a 32-bit signed integer, up to 2^31 - 1",
      },
    },
  },
);
