/**
 * What an adapter without Latchkey's optional extensions cannot serve. An Auth.js adapter
 * (`@auth/prisma-adapter`, `@auth/drizzle-adapter`, `@auth/pg-adapter`, ...) signs users in and
 * keeps their sessions as under Auth.js; the features below need methods Auth.js never defined.
 * The configuration says which ones once, as the `adapter-extensions-missing` warning, so that
 * nobody learns it from an exception in production.
 */
import type { Adapter } from "../../shapes/adapters.js";
import { secondFactorMethods } from "../flows/second-factor/secret.js";

/** Each extension, the methods it needs, and what is unavailable without them. */
const extensions: ReadonlyArray<{ methods: readonly (keyof Adapter)[]; unavailable: string }> = [
  {
    methods: ["listSessions"],
    unavailable:
      "the sessions list (listSessions, revokeSession of @latchkey/core/sessions), the device and times of each session, and session.maxPerUser",
  },
  { methods: ["deleteSessions"], unavailable: "revokeOtherSessions and revokeUserSessions" },
  { methods: ["listAccounts"], unavailable: "listAccounts and unlinkAccount" },
  { methods: ["getAccountsByUserId"], unavailable: "getAccessToken under database sessions" },
  {
    methods: ["updateAccount"],
    unavailable: "storing a provider's new tokens at each sign-in, and refreshing them (getAccessToken)",
  },
  { methods: secondFactorMethods, unavailable: "a second factor (the TOTP provider)" },
  {
    methods: ["createAuditEvent", "listAuditEvents", "deleteAuditEvents"],
    unavailable: "a stored audit trail (audit.store; events.audit still receives every event)",
  },
];

/**
 * The text of the `adapter-extensions-missing` warning for `adapter`, naming each missing method
 * and what it turns off; undefined when the adapter has them all (Latchkey's own adapters).
 *
 * @example
 * ```ts
 * missingExtensions(DrizzleAdapter(db)) // "The adapter has no listSessions: unavailable: the sessions list ..."
 * ```
 */
export function missingExtensions(adapter: Adapter): string | undefined {
  const lines: string[] = [];
  for (const { methods, unavailable } of extensions) {
    const missing = methods.filter((method) => typeof adapter[method] !== "function");
    if (missing.length) lines.push(`${missing.join(", ")} (${unavailable})`);
  }
  if (!lines.length) return undefined;
  return `The adapter lacks Latchkey's optional methods ${lines.join("; ")}. Sign-in and sessions work as under Auth.js; a function that needs a missing method throws MissingAdapterMethods naming it, an option that needs one (TOTP(), audit.store) is refused at start, and a sign-in keeps the account's first tokens. @latchkey/sql-adapter and @latchkey/redis-adapter have them all.`;
}
