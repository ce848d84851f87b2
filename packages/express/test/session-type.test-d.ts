// Type tests: what an application's `session` callback returns is what `getSession` and
// `requireAuth` give it back. Checked by `npm run typecheck` (tsconfig.test.json); nothing runs.
import type { AuthConfig, Session } from "@latchkey/core";
import Credentials from "@latchkey/core/providers/credentials";
import express from "express";
import { expectTypeOf } from "vitest";
import { getSession, requireAuth, type SessionLocals, type SessionOf } from "../src/index.js";

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

// requireAuth hands the same type, non-null, to the handlers after it on `res.locals.session`, and
// `SessionLocals` names it for handlers that type their own request.
const app = express();
app.get("/account", requireAuth(withRole), (_req, res) => {
  expectTypeOf(res.locals.session).toEqualTypeOf<WithRole>();
  expectTypeOf(res.locals.session.role).toEqualTypeOf<"admin">();
});
expectTypeOf<SessionLocals<typeof withRole>>().toEqualTypeOf<{ session: WithRole }>();
app.post(
  "/orders",
  requireAuth(withRole),
  (
    req: express.Request<
      { id: string },
      unknown,
      { item: string },
      express.Request["query"],
      SessionLocals<typeof withRole>
    >,
    res,
  ) => {
    expectTypeOf(req.body.item).toEqualTypeOf<string>();
    expectTypeOf(res.locals.session.role).toEqualTypeOf<"admin">();
  },
);

// The same through a typed response beside a typed request (the pattern SessionLocals documents).
app.post(
  "/typed-response",
  requireAuth(withRole),
  (
    req: express.Request<{}, unknown, { item: string }>,
    res: express.Response<unknown, SessionLocals<typeof withRole>>,
  ) => {
    expectTypeOf(req.body.item).toEqualTypeOf<string>();
    expectTypeOf(res.locals.session).toEqualTypeOf<WithRole>();
  },
);

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
