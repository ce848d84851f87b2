/**
 * `@auth/pg-adapter` (the schema its documentation gives: SERIAL ids) under Latchkey, unchanged:
 * the sign-in flows, and the conformance suite with Latchkey's extensions marked absent.
 */
import { pgAdapterFixture } from "./databases.js";
import { runAuthjsAdapter } from "./flows.js";

await runAuthjsAdapter(
  "@auth/pg-adapter",
  pgAdapterFixture,
  { users: "users", accounts: "accounts", sessions: "sessions", verificationTokens: "verification_token" },
  {
    conformanceName: "pg",
    absent: [
      "getAccount",
      "getAuthenticator",
      "createAuthenticator",
      "listAuthenticatorsByUserId",
      "updateAuthenticatorCounter",
    ],
    notApplicable: {
      "rejects a second user with the same e-mail and keeps the first":
        "its documented schema has no unique key on users.email",
      "rejects linking the same provider account twice":
        "its documented schema has no unique key on (provider, providerAccountId)",
      "createSession stores a session that getSessionAndUser returns with its user":
        "its session rows carry a SERIAL id and an integer userId; Latchkey reads the token, user and expiry",
      "deleteSession removes one session and keeps the user's others":
        "its session rows carry a SERIAL id and an integer userId; Latchkey reads the token, user and expiry",
      "updateSession moves the expiry and returns the session":
        "it answers nothing (its UPDATE returns no row); Latchkey never reads that answer",
      "of a missing user does not throw":
        "its user ids are integers, so PostgreSQL refuses a UUID; Latchkey never deletes users",
    },
  },
);
