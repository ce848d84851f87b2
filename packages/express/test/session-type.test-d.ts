// Type tests: what an application's `session` callback returns is what `getSession` and
// `requireAuth` give it back. Checked by `npm run typecheck` (tsconfig.test.json); nothing runs.
import type { AuthConfig, Session } from "@latchkey/core";
import Credentials from "@latchkey/core/providers/credentials";
import { expectTypeOf } from "vitest";
import { getSession, type SessionOf } from "../src/index.js";

declare const req: Parameters<typeof getSession>[0];

// A callback that shapes the session: its return type reaches getSession's result.
type WithRole = { expires: string; user: { id: string; name: string | null | undefined }; role: "admin" };
const withRole = {
  providers: [Credentials({ authorize: () => null })],
  callbacks: {
    session: ({ session, token }) => ({
      expires: String(session.expires),
      user: { id: token.sub ?? "", name: session.user?.name },
      role: "admin" as const,
    }),
  },
} satisfies AuthConfig;
expectTypeOf<SessionOf<typeof withRole>>().toEqualTypeOf<WithRole>();
expectTypeOf(getSession(req, withRole)).resolves.toEqualTypeOf<WithRole | null>();

// An async callback: the promise is unwrapped.
const asyncCallback = {
  providers: [],
  callbacks: { session: async () => ({ expires: "2030-01-01T00:00:00.000Z", tier: 2 }) },
} satisfies AuthConfig;
expectTypeOf(getSession(req, asyncCallback)).resolves.toEqualTypeOf<{ expires: string; tier: number } | null>();

// Without a session callback (or typed only as AuthConfig) the session is Auth.js's `Session`.
expectTypeOf(getSession(req, { providers: [] })).resolves.toEqualTypeOf<Session | null>();
declare const plain: AuthConfig;
expectTypeOf(getSession(req, plain)).resolves.toEqualTypeOf<Session | null>();

// The result may be null: it cannot be read without a check.
async function readsWithoutCheck() {
  const session = await getSession(req, withRole);
  // @ts-expect-error possibly null
  session.role;
  if (session) expectTypeOf(session.role).toEqualTypeOf<"admin">();
}
void readsWithoutCheck;
