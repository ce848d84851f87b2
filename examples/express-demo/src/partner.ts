/**
 * Development only: "Reports", a second local application whose users sign in with the demo
 * ("Sign in with the Latchkey demo"). It is a relying party like any other: Latchkey's generic
 * OIDC provider pointed at the demo's issuer (discovery, the code flow with PKCE, state and
 * nonce, the ID token checked), its own secret and sessions. It listens on 127.0.0.1, another host
 * than the demo's `localhost`, so the two applications' cookies stay apart.
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ExpressAuth, getSession } from "@latchkey/express";
import OIDC from "@latchkey/express/providers/generic-oidc";
import express from "express";
import { esc } from "./pages.js";

export interface Partner {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts the second application; `register(redirectUri)` registers it with the demo's server and
 * answers its client id and secret.
 */
export async function startPartner(
  issuer: string,
  register: (redirectUri: string) => Promise<{ clientId: string; clientSecret: string }>,
  port = 0,
): Promise<Partner> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { clientId, clientSecret } = await register(`${url}/auth/callback/latchkey-demo`);
  const config = {
    secret: randomBytes(32).toString("base64url"),
    trustHost: true,
    providers: [
      OIDC({
        id: "latchkey-demo",
        name: "the Latchkey demo",
        issuer, // discovery: <issuer>/.well-known/openid-configuration
        clientId,
        clientSecret,
        authorization: { params: { scope: "openid profile email" } },
      }),
    ],
  };
  const app = express();
  app.disable("x-powered-by");
  app.use("/auth", ExpressAuth(config));
  app.get("/", async (req, res) => {
    const session = await getSession(req, config);
    const who = session?.user
      ? `<p id="partner-user">Signed in to Reports as <strong>${esc(session.user.name ?? "")}</strong> (${esc(session.user.email ?? "")}), through the Latchkey demo.</p><p><a href="/auth/signout">Sign out of Reports</a></p>`
      : `<p id="partner-user">Not signed in to Reports.</p><p><a id="partner-signin" href="/auth/signin">Sign in with the Latchkey demo</a></p>`;
    res.send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Reports</title></head><body><h1>Reports</h1><p>A second application that signs its users in with the Latchkey demo at ${esc(issuer)}.</p>${who}</body></html>`,
    );
  });
  server.on("request", app);
  return {
    url,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
