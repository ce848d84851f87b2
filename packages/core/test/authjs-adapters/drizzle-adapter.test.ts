/**
 * `@auth/drizzle-adapter` (PostgreSQL, its default tables) under Latchkey, unchanged: the sign-in
 * flows, and the conformance suite with Latchkey's extensions marked absent.
 */
import { serviceAvailable } from "../../../adapter-test/src/services.js";
import { drizzleAdapterFixture } from "./databases.js";
import { runLatchkeyFlows } from "./flows.js";

const postgresUp = await serviceAvailable("PostgreSQL", 5432);

if (postgresUp)
  runLatchkeyFlows("@auth/drizzle-adapter", drizzleAdapterFixture, {
    users: `"user"`,
    accounts: "account",
    sessions: "session",
    verificationTokens: `"verificationToken"`,
  });
