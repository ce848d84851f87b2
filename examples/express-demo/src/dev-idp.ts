/**
 * Development only: a local OpenID Provider (the `oidc-provider` package) on a loopback port, so
 * that the "Sign in with Demo IdP" button works offline. Its login page accepts any name and any
 * password; the name becomes the account (`alice` → alice@idp.example). A real application uses
 * its identity provider's issuer URL, client id and secret instead.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type Context } from "oidc-provider";

export interface DemoIdP {
  issuer: string;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
}

/** Starts the provider on 127.0.0.1 with one client allowed to return to `redirectUris`. */
export async function startDemoIdP(redirectUris: string[], port = 0): Promise<DemoIdP> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = "latchkey-demo";
  const clientSecret = randomBytes(24).toString("base64url");
  const signingKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });

  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: redirectUris }],
    jwks: { keys: [{ ...signingKey, kid: "demo-idp", use: "sig", alg: "RS256" }] },
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    conformIdTokenClaims: false, // the profile claims go into the ID token, as with most providers
    features: { devInteractions: { enabled: true } }, // oidc-provider's built-in login page
    // Skip the consent page: the demo is this provider's own, first-party client.
    async loadExistingGrant(ctx: Context) {
      const { client, session, result, provider } = ctx.oidc;
      if (!client || !session) return undefined;
      const grantId = result?.consent?.grantId ?? session.grantIdFor(client.clientId);
      if (grantId) return provider.Grant.find(grantId);
      const grant = new provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      grant.addOIDCScope("openid email profile");
      await grant.save();
      return grant;
    },
    // Every login name is an account.
    async findAccount(_ctx: Context, login: string) {
      const email = login.includes("@") ? login.toLowerCase() : `${login.toLowerCase()}@idp.example`;
      const name = login.split("@")[0] ?? login;
      return {
        accountId: login,
        claims: async () => ({ sub: login, name, email, email_verified: true }),
      };
    },
  });
  server.on("request", provider.callback());

  return {
    issuer,
    clientId,
    clientSecret,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
