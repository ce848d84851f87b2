/**
 * The Latchkey configuration of the demo, and what `NextAuth` makes of it: the route handlers
 * (app/api/auth/[...nextauth]/route.ts), `auth()` for server code and the proxy/middleware, and
 * the server-action `signIn` / `signOut` / `unstable_update`. The part of this folder an
 * application copies.
 */
import NextAuth, { type NextAuthConfig } from "@latchkey/next";
import { authorizePassword } from "@latchkey/next/accounts";
import Credentials from "@latchkey/next/providers/credentials";
import OIDC from "@latchkey/next/providers/generic-oidc";
import Nodemailer from "@latchkey/next/providers/nodemailer";
import Passkey from "@latchkey/next/providers/passkey";
import TOTP from "@latchkey/next/providers/totp";
import { SqlRevocationStore } from "@latchkey/sql-adapter";
import { passwords } from "./passwords";
import { adapter, db } from "./storage";

const env = process.env;
const providers: NextAuthConfig["providers"] = [];

// The local OpenID Provider the start script runs (development only): any name and password.
if (env.DEMO_IDP_ISSUER && env.DEMO_IDP_CLIENT_ID && env.DEMO_IDP_CLIENT_SECRET) {
  providers.push(
    OIDC({
      id: "demo-idp",
      name: "Demo IdP",
      issuer: env.DEMO_IDP_ISSUER,
      clientId: env.DEMO_IDP_CLIENT_ID,
      clientSecret: env.DEMO_IDP_CLIENT_SECRET,
      // Ours, so it may sign into an existing user with the same e-mail. Never set this for a
      // provider that does not verify e-mails.
      allowDangerousEmailAccountLinking: true,
    }),
  );
}

providers.push(
  Credentials({
    name: "Password",
    credentials: {
      email: { label: "Email", type: "email", autocomplete: "username", required: true },
      password: { label: "Password", type: "password", autocomplete: "current-password", required: true },
    },
    // The stored user: a password, a magic link and a passkey sign into one user. authorizePassword
    // checks the hash (an unknown address costs the same) and refuses an address not yet verified
    // (sign-up at /signup); a reset or change while it runs refuses it too.
    authorize: (credentials) => authorizePassword(authConfig, { passwords }, credentials),
  }),
);

// The start script's mail catcher (development), or EMAIL_SERVER. The e-mail has a link and a code.
const mailServer = env.DEMO_SMTP_PORT
  ? { host: "127.0.0.1", port: Number(env.DEMO_SMTP_PORT), secure: false, ignoreTLS: true }
  : env.EMAIL_SERVER;
if (mailServer) {
  providers.push(
    Nodemailer({
      name: "Email",
      server: mailServer,
      from: env.EMAIL_FROM ?? "Latchkey demo <no-reply@demo.localhost>",
      code: true,
    }),
  );
}

providers.push(
  Passkey({
    relyingParty: { name: "Latchkey Next.js demo" },
    formFields: {
      email: { label: "Email for your passkey", type: "email", required: true, autocomplete: "username webauthn" },
    },
  }),
);

// A second factor, enrolled on the account page: asked after any of the methods above.
providers.push(TOTP({ issuer: "Latchkey Next.js demo" }));

/** The configuration, shared with the account page's second-factor actions. */
// NextAuth fills this object from the environment (AUTH_SECRET, the base path) when it is called,
// so the account page's second-factor functions (@latchkey/core/second-factor) take it as it is.
// No `trustHost`: the start script gives AUTH_URL (the demo's own URL), from which every link,
// the e-mailed ones included, is built whatever host a request names (docs/deployment.md).
export const authConfig: NextAuthConfig = {
  adapter,
  // JWT sessions, revocable on every server that shares the database (the revocations table,
  // polled every second on SQLite): a sign-out, a password reset or change ends them everywhere.
  // DEMO_REVOCATION=memory keeps them in this process's memory instead (`revocation: true`): one
  // `next start`, every one of its server layers included.
  session: {
    strategy: "jwt",
    revocation: env.DEMO_REVOCATION === "memory" ? true : { store: SqlRevocationStore(db) },
  },
  experimental: { enableWebAuthn: true },
  theme: { colorScheme: "auto", brandColor: "#3b5bdb" },
  providers,
  callbacks: {
    jwt({ token, account, trigger, session }) {
      if (account) token.provider = account.provider;
      // `update({ name })` from useSession, or unstable_update on the server.
      const name = (session as { name?: unknown } | undefined)?.name;
      if (trigger === "update" && typeof name === "string") token.name = name.slice(0, 60);
      return token;
    },
    session({ session, token }) {
      const amr = Array.isArray(token.amr) ? token.amr : undefined;
      return { ...session, user: { ...session.user, id: token.sub }, provider: token.provider, amr };
    },
  },
};

export const { handlers, auth, signIn, signOut, unstable_update } = NextAuth(authConfig);

/** How each provider id reads on the pages. */
export const methodNames: Record<string, string> = {
  credentials: "password",
  nodemailer: "e-mail link or code",
  passkey: "passkey",
  "demo-idp": "Demo IdP",
};

/** The session as the callbacks above shape it. */
export interface DemoSession {
  user?: { id?: string; name?: string | null; email?: string | null };
  expires: string;
  provider?: string;
  amr?: string[];
}
