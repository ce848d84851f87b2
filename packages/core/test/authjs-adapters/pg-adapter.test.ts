/**
 * `@auth/pg-adapter` (the schema its documentation gives: SERIAL ids) under Latchkey, unchanged:
 * the sign-in flows, and the conformance suite with Latchkey's extensions marked absent.
 */
import { serviceAvailable } from "../../../adapter-test/src/services.js";
import { pgAdapterFixture } from "./databases.js";
import { runLatchkeyFlows } from "./flows.js";

const postgresUp = await serviceAvailable("PostgreSQL", 5432);

if (postgresUp)
  runLatchkeyFlows("@auth/pg-adapter", pgAdapterFixture, {
    users: "users",
    accounts: "accounts",
    sessions: "sessions",
    verificationTokens: "verification_token",
  });
