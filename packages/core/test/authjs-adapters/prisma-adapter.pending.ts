/**
 * `@auth/prisma-adapter` (Prisma 7, its client generated from prisma/schema.prisma, on PostgreSQL
 * through `@prisma/adapter-pg`) under Latchkey, unchanged: the sign-in flows, and the conformance
 * suite with Latchkey's extensions marked absent.
 *
 * PENDING (not named *.test.ts, so not run): it fails today, for two reasons it found.
 * 1. Latchkey's OAuth callback gives `linkAccount` the provider's whole token set (`expires_in`
 *    included) when the provider has no `account()` callback; Auth.js's default `account()` keeps
 *    only access_token, id_token, refresh_token, expires_at, scope, token_type and session_state.
 *    Prisma refuses a field its schema lacks, so every OAuth sign-in over Prisma fails
 *    (`AdapterError` from `linkAccount`: "Unknown argument expires_in"). The fix belongs in the
 *    core (lib/flows/oauth/code-exchange.ts, `storedAccount`).
 * 2. The conformance suite (packages/adapter-test) passes whole records where Auth.js's core passes
 *    keys: the stored account to `getUserByAccount`, the stored token (with `expires`) to
 *    `useVerificationToken`; Prisma refuses the extra fields. Prisma's `delete`/`update` of a
 *    missing row also throw (unlinkAccount, deleteSession, updateSession, deleteUser of a missing
 *    record), and its `Int` counter is 32-bit signed, as Drizzle's: to be declared not applicable
 *    with their reasons once Latchkey's core is checked to tolerate them.
 * Rename to prisma-adapter.test.ts once both are mended.
 */
import { runAdapterConformance } from "../../../adapter-test/src/index.js";
import { serviceAvailable } from "../../../adapter-test/src/services.js";
import { prismaAdapterFixture } from "./databases.js";
import { AUTHJS_CORE_RULES, LATCHKEY_EXTENSIONS, runLatchkeyFlows } from "./flows.js";

const postgresUp = await serviceAvailable("PostgreSQL", 5432);

if (postgresUp)
  runLatchkeyFlows("@auth/prisma-adapter", prismaAdapterFixture, {
    users: `"User"`,
    accounts: `"Account"`,
    sessions: `"Session"`,
    verificationTokens: `"VerificationToken"`,
  });

runAdapterConformance(
  "prisma",
  async () => {
    const { adapter, probe, teardown } = await prismaAdapterFixture();
    return { adapter, db: probe, teardown };
  },
  {
    skip: !postgresUp,
    authjs: {
      absent: [...LATCHKEY_EXTENSIONS],
      notApplicable: { ...AUTHJS_CORE_RULES },
    },
  },
);
