/**
 * The Latchkey configuration of the demo: the part of this folder an application copies.
 */
import { type AuthConfig, authorizePassword, type Session } from "@latchkey/express";
import Credentials from "@latchkey/express/providers/credentials";
import OIDC from "@latchkey/express/providers/generic-oidc";
import GitHub from "@latchkey/express/providers/github";
import Google from "@latchkey/express/providers/google";
import Nodemailer, { type NodemailerUserConfig } from "@latchkey/express/providers/nodemailer";
import Passkey from "@latchkey/express/providers/passkey";
import TOTP from "@latchkey/express/providers/totp";
import type { DemoIdP } from "./dev-idp.js";
import { demoPasswords } from "./passwords.js";
import type { Storage } from "./storage.js";
import { demoRoles } from "./teams.js";

/**
 * The session as the demo's callbacks shape it: the user's id, the provider of the first factor,
 * and the methods used (`amr`: `["pwd"]`, or `["pwd", "otp"]` after an authenticator app code);
 * Latchkey adds the active organization and the user's role there, read from the store each time.
 */
export type DemoSession = Session & {
  user: { id?: string };
  provider?: string;
  amr?: string[];
  activeOrganization?: { id: string; role: string } | null;
};

export interface DemoAuthOptions {
  secret: string;
  storage: Storage;
  /** Where sign-in e-mails (link and code) are sent from and through; no e-mail sign-in without it. */
  mail?: { server: NodemailerUserConfig["server"]; from: string } | undefined;
  /** The local OpenID Provider (development only). */
  idp?: DemoIdP | undefined;
  env?: NodeJS.ProcessEnv;
  /**
   * "database" stores sessions (the account page then lists devices and signs them out), for
   * every method: the password sign-in opts in with `databaseSessions: true`.
   * @default "jwt" (DEMO_SESSIONS)
   */
  sessions?: "jwt" | "database";
}

export function authConfig({
  secret,
  storage,
  mail,
  idp,
  env = process.env,
  sessions = "jwt",
}: DemoAuthOptions): AuthConfig {
  const { adapter } = storage;
  const providers: AuthConfig["providers"] = [];

  // Buttons: OAuth / OpenID Connect providers.
  if (idp) {
    providers.push(
      OIDC({
        id: "demo-idp",
        name: "Demo IdP",
        issuer: idp.issuer, // endpoints come from <issuer>/.well-known/openid-configuration
        clientId: idp.clientId,
        clientSecret: idp.clientSecret,
        // The demo's own provider verifies nothing, but it is ours: let it sign into an existing
        // user with the same e-mail. Never set this for a provider that does not verify e-mails.
        allowDangerousEmailAccountLinking: true,
      }),
    );
  }
  // GitHub and Google read AUTH_GITHUB_ID / AUTH_GITHUB_SECRET and AUTH_GOOGLE_ID /
  // AUTH_GOOGLE_SECRET themselves; register <origin>/auth/callback/github (or /google) with them.
  if (env.AUTH_GITHUB_ID && env.AUTH_GITHUB_SECRET) providers.push(GitHub);
  if (env.AUTH_GOOGLE_ID && env.AUTH_GOOGLE_SECRET) providers.push(Google);

  // Forms: password, magic link, passkey. Each e-mail field is labelled by its method.
  providers.push(
    Credentials({
      name: "Password",
      credentials: {
        email: { label: "Email for your password", type: "email", autocomplete: "username", required: true },
        password: { label: "Password", type: "password", autocomplete: "current-password", required: true },
      },
      // Under DEMO_SESSIONS=database a password sign-in gets a stored session too (and its
      // "credentials" account is stored through the adapter); under JWT sessions it changes nothing.
      databaseSessions: true,
      // Return the stored user: then a password, a magic link and a passkey sign into one user.
      // authorizePassword checks the hash (an unknown address costs the same) and refuses an
      // address not yet verified (sign-up at /password/signup).
      authorize: (credentials) => authorizePassword(config, { passwords: demoPasswords }, credentials),
    }),
  );
  // The e-mail carries a link and a six-digit code: the code is typed on the "check your e-mail"
  // page, for mail scanners that open links and for mail read on another device.
  if (mail) providers.push(Nodemailer({ name: "Email", server: mail.server, from: mail.from, code: true }));
  // A new address registers a passkey (and a user); a known one signs in with its passkey. The
  // relying party's id and origin default to the request's host and origin.
  providers.push(
    Passkey({
      relyingParty: { name: "Latchkey demo" },
      formFields: {
        email: { label: "Email for your passkey", type: "email", required: true, autocomplete: "username webauthn" },
      },
    }),
  );

  // A second factor: a user who enrols an authenticator app on the account page (see app.ts)
  // is asked for its six-digit code (or a backup code) after any of the methods above.
  providers.push(TOTP({ issuer: "Latchkey demo" }));

  const config: AuthConfig = {
    secret,
    // No `trustHost`: the demo runs on localhost (a loopback name is trusted, and its mails link
    // there); anywhere else, set AUTH_URL (docs/deployment.md), which its e-mailed links then use.
    adapter, // users, accounts, magic-link tokens, passkeys and second factors
    // Sessions in an encrypted cookie (with an adapter the default would be database sessions);
    // DEMO_SESSIONS=database stores them instead, for every sign-in method. JWT sessions are
    // revocable (in this process's memory; Redis or PostgreSQL for several instances): a password
    // reset or change ends every session of the user.
    session: sessions === "jwt" ? { strategy: "jwt", revocation: true } : { strategy: sessions },
    // Security events (sign-ins, failures with their reason, revocations, ...) kept for a week in
    // the same database; the account page lists the user's own.
    audit: { store: true, retention: 7 * 24 * 60 * 60 },
    // Organizations (teams.ts): the store and roles that the active organization (chosen with
    // POST /auth/organization, on the account page) and requireAuth's `permission` read.
    organizations: { store: storage.organizations, roles: demoRoles },
    // The admin tools' store (admin.ts): every sign-in, by any method, refuses a banned user.
    admin: { store: storage.admin },
    experimental: { enableWebAuthn: true }, // passkeys
    theme: { colorScheme: "auto", brandColor: "#3b5bdb" },
    providers,
    callbacks: {
      // On sign-in `account` is set: remember which provider it was.
      jwt({ token, account }) {
        if (account) token.provider = account.provider;
        return token;
      },
      // What getSession() and GET /auth/session return (database sessions pass `user`, JWT `token`),
      // with how the user signed in (`amr`) when a second factor is configured. Name the fields
      // the browser needs: under database sessions `session` is the stored record (its device,
      // client address, ...), and everything returned here reaches any script on the page.
      session({ session, token, user }) {
        if (user) return { user: { ...session.user, id: user.id }, expires: session.expires };
        const amr = Array.isArray(token.amr) ? token.amr : undefined;
        return { ...session, user: { ...session.user, id: token.sub }, provider: token.provider, amr };
      },
    },
  };
  return config;
}
