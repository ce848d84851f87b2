// Type tests of @latchkey/next's next-auth v5 surface, as applications use it: the shapes below are
// next-auth's (read from next-auth 5.0.0-beta.32 and @auth/core 0.41.3), asserted here so that a
// change that narrows one fails `npm run typecheck`. Module augmentation, which would change these
// types for every test of the monorepo, is checked in throw-away programs instead
// (next-auth-apps.test.ts). Nothing here runs.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AdapterUser } from "@latchkey/core/adapters";
import type { DefaultUser } from "@latchkey/core/types";
import NextAuth, {
  AuthError,
  CredentialsSignin,
  type DefaultSession,
  type NextAuthConfig,
  type NextAuthRequest,
  type NextAuthResult,
  type Session,
  type User,
} from "@latchkey/next";
import { type DefaultJWT, getToken, type JWT } from "@latchkey/next/jwt";
import type { Provider, ProviderId } from "@latchkey/next/providers";
import Credentials from "@latchkey/next/providers/credentials";
import GitHub from "@latchkey/next/providers/github";
import {
  signIn as clientSignIn,
  signOut as clientSignOut,
  type GetSessionParams,
  getSession,
  type SessionContextValue,
  SessionProvider,
  type SessionProviderProps,
  type SignInResponse,
  useSession,
} from "@latchkey/next/react";
import type { NextFetchEvent, NextMiddleware, NextRequest } from "next/server.js";
import { NextResponse } from "next/server.js";
import { createElement } from "react";
import { expectTypeOf } from "vitest";

type Callbacks = NonNullable<NextAuthConfig["callbacks"]>;
type JwtParams = Parameters<NonNullable<Callbacks["jwt"]>>[0];
type SessionParams = Parameters<NonNullable<Callbacks["session"]>>[0];

// Session, User and JWT are each an empty interface over its own Default one, as in Auth.js: an
// augmentation that redeclares a default field (`user: ...`, `id: string`, `email: string`) then
// overrides the base's instead of clashing with it (TS2687 / TS2717), and `Session extends
// DefaultSession` names no interface that extends itself (TS2310).
expectTypeOf<DefaultSession>().toEqualTypeOf<{ user?: User; expires: string }>();
expectTypeOf<Session>().toEqualTypeOf<DefaultSession>();
expectTypeOf<User>().toEqualTypeOf<DefaultUser>();
expectTypeOf<DefaultUser>().toEqualTypeOf<{
  id?: string;
  name?: string | null;
  email?: string | null;
  image?: string | null;
}>();
expectTypeOf<JWT>().toEqualTypeOf<DefaultJWT>();
expectTypeOf<DefaultJWT>().toMatchTypeOf<{
  name?: string | null;
  email?: string | null;
  picture?: string | null;
  sub?: string;
  iat?: number;
  exp?: number;
  jti?: string;
}>();
expectTypeOf<DefaultJWT["anyClaim"]>().toBeUnknown();

// The jwt callback: `session` is next-auth's `any` (the data update() sent), so the documented
// `if (trigger === "update") token.name = session.user.name` compiles.
expectTypeOf<JwtParams["session"]>().toBeAny();
expectTypeOf<JwtParams["trigger"]>().toEqualTypeOf<"signIn" | "signUp" | "update" | undefined>();
expectTypeOf<JwtParams["account"]>().toEqualTypeOf<import("@latchkey/core").Account | null | undefined>();
const jwtCallback: Callbacks["jwt"] = ({ token, trigger, session }) => {
  if (trigger === "update") token.name = session.user.name;
  return token;
};
void jwtCallback;

// The session callback: the session's user is an AdapterUser (its id a string), `newSession` is
// `any`, and what it returns may be a Session, a DefaultSession or a larger object.
expectTypeOf<SessionParams["session"]["user"]>().toEqualTypeOf<AdapterUser & (User | undefined)>();
expectTypeOf<SessionParams["session"]["userId"]>().toEqualTypeOf<string>();
expectTypeOf<SessionParams["session"]["expires"]>().toEqualTypeOf<string>();
expectTypeOf<SessionParams["newSession"]>().toBeAny();
expectTypeOf<SessionParams["token"]>().toEqualTypeOf<JWT>();
expectTypeOf<SessionParams["user"]>().toEqualTypeOf<AdapterUser>();
declare const base: DefaultSession;
const sessionCallbacks: Array<Callbacks["session"]> = [
  ({ session, token }) => {
    session.user.id = token.sub ?? session.user.id;
    return session;
  },
  () => base,
  ({ session, user }) => ({ ...session, user: { ...session.user, id: user.id } }),
];
void sessionCallbacks;
// The session's token is never handed to the callback (whatever it returns reaches the page).
// @ts-expect-error no sessionToken on the session callback's session
void (null as unknown as SessionParams["session"]).sessionToken;

// The session event, typed as Auth.js types it.
expectTypeOf<Parameters<NonNullable<NonNullable<NextAuthConfig["events"]>["session"]>>[0]>().toEqualTypeOf<{
  session: Session;
  token: JWT;
}>();

// `authorized` answers a boolean, a NextResponse or a Response (or nothing).
const authorized: Callbacks["authorized"] = ({ auth, request }) => {
  if (request.nextUrl.pathname === "/admin") return NextResponse.redirect(new URL("/", request.url));
  if (request.nextUrl.pathname === "/api") return Response.json({ signedIn: !!auth }, { status: auth ? 200 : 401 });
  if (request.nextUrl.pathname === "/open") return undefined;
  return !!auth?.user;
};
void authorized;

// getToken: `secret` may be `process.env.AUTH_SECRET` as it is; the result follows `raw`.
declare const request: Request;
declare const maybeSecret: string | undefined;
declare const rawOrNot: boolean;
expectTypeOf(getToken({ req: request, secret: maybeSecret })).resolves.toEqualTypeOf<JWT | null>();
expectTypeOf(getToken({ req: request, secret: maybeSecret, raw: true })).resolves.toEqualTypeOf<string>();
expectTypeOf(getToken({ req: request, secret: maybeSecret, raw: false })).resolves.toEqualTypeOf<JWT | null>();
expectTypeOf(getToken({ req: request, raw: rawOrNot })).resolves.toEqualTypeOf<string | JWT | null>();
expectTypeOf(
  getToken({ req: { headers: { cookie: "a=b" } }, secret: maybeSecret, logger: console }),
).resolves.toEqualTypeOf<JWT | null>();

// NextAuth: a configuration object or a function of the request; the result is next-auth's.
const { auth, signIn, signOut, handlers, unstable_update } = NextAuth({
  providers: [GitHub, Credentials({ credentials: { email: {} }, authorize: async () => null })],
});
expectTypeOf(NextAuth((req) => ({ providers: req ? [GitHub] : [] }))).toEqualTypeOf<NextAuthResult>();
expectTypeOf<NextRequest>().toMatchTypeOf<Parameters<typeof handlers.GET>[0]>();
expectTypeOf(unstable_update({ user: { name: "Ada" } })).resolves.toEqualTypeOf<Session | null>();

// auth(), in each of its forms.
declare const req: IncomingMessage;
declare const res: ServerResponse;
expectTypeOf(auth()).resolves.toEqualTypeOf<Session | null>();
expectTypeOf(auth(req, res)).resolves.toEqualTypeOf<Session | null>();
expectTypeOf(auth({ req, res })).resolves.toEqualTypeOf<Session | null>();
const route = auth(async (r, ctx) => Response.json({ who: r.auth?.user?.email ?? null, params: await ctx.params }));
expectTypeOf(route).parameters.toMatchTypeOf<[NextRequest, { params: Promise<unknown> }]>();
const middleware = auth((r) => {
  expectTypeOf(r).toEqualTypeOf<NextAuthRequest>();
  expectTypeOf(r.auth).toEqualTypeOf<Session | null>();
  if (!r.auth) return null;
});
expectTypeOf(middleware).toEqualTypeOf<NextMiddleware>();
declare const event: NextFetchEvent;
declare const nextRequest: NextRequest;
expectTypeOf(auth(nextRequest, event)).resolves.toEqualTypeOf<Response>();
// @ts-expect-error auth() answers a session, not a string
const notAString: string = await auth();
void notAString;

// The server actions: `redirect: false` answers next-auth's `any` (the URL; `{ redirect }` for
// signOut), and otherwise nothing (they redirect).
expectTypeOf(signIn("credentials", { email: "a@b.c", redirect: false })).resolves.toBeAny();
expectTypeOf(signIn("github", { redirectTo: "/" })).resolves.toBeNever();
expectTypeOf(signIn("credentials", new FormData())).resolves.toBeNever();
expectTypeOf(signOut({ redirect: false })).resolves.toBeAny();
expectTypeOf(signOut()).resolves.toBeNever();

// Errors: a closed union to switch on, and CredentialsSignin's code.
declare const thrown: unknown;
if (thrown instanceof AuthError) {
  expectTypeOf(thrown.type).toMatchTypeOf<string>();
  expectTypeOf(thrown.cause?.err).toEqualTypeOf<Error | undefined>();
  switch (thrown.type) {
    case "CredentialsSignin":
    case "AccessDenied":
      break;
    // @ts-expect-error no such error type
    case "NoSuchError":
      break;
  }
}
class InvalidLogin extends CredentialsSignin {
  override code = "invalid_credentials";
}
expectTypeOf(new InvalidLogin().type).toMatchTypeOf<"CredentialsSignin">();

// `next-auth/providers`: the Provider type (generic over its profile) and ProviderId.
const providers: Provider[] = [GitHub, Credentials({ authorize: () => null })];
const ids = providers.map((p) => (typeof p === "function" ? p() : p).id);
expectTypeOf(ids).toEqualTypeOf<string[]>();
expectTypeOf<ProviderId>().toEqualTypeOf<string>();

// The React client: SessionProvider's props (baseUrl accepted as in next-auth), useSession's
// narrowing, getSession's params, and the browser signIn / signOut overloads.
expectTypeOf<SessionProviderProps>().toMatchTypeOf<{
  session?: Session | null;
  basePath?: string;
  baseUrl?: string;
  refetchInterval?: number;
  refetchOnWindowFocus?: boolean;
}>();
void createElement(SessionProvider, { session: null, baseUrl: "https://app.example", refetchInterval: 60 });
function useSessionShapes(): void {
  expectTypeOf(useSession()).toEqualTypeOf<SessionContextValue<false>>();
  expectTypeOf(useSession({ required: true, onUnauthenticated: () => {} })).toEqualTypeOf<SessionContextValue<true>>();
}
void useSessionShapes;
declare const required: SessionContextValue<true>;
if (required.status !== "loading") expectTypeOf(required.data).toEqualTypeOf<Session>();
expectTypeOf<GetSessionParams>().toMatchTypeOf<{ broadcast?: boolean; triggerEvent?: boolean; event?: string }>();
expectTypeOf(getSession({ triggerEvent: false, event: "storage" })).resolves.toEqualTypeOf<Session | null>();
expectTypeOf(clientSignIn("credentials", { email: "a@b.c", redirect: false })).resolves.toEqualTypeOf<SignInResponse>();
expectTypeOf(clientSignIn("github", { callbackUrl: "/" })).resolves.toBeUndefined();
expectTypeOf(clientSignOut({ redirect: false })).resolves.toMatchTypeOf<{ url: string }>();
