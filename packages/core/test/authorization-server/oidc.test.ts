/**
 * The OpenID Provider: `prompt` and `max_age` against Latchkey's sessions, `acr`/`amr` from its
 * second factor, RP-initiated and back-channel logout ending every session of the user, key
 * rotation, and the users' side (the applications a user authorised, revoked at once).
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { authorizedApps, consentDetails, registerClient, revokeAuthorizedApp } from "../../src/authorization-server.js";
import { getCsrfToken } from "../../src/sessions.js";
import {
  authorizationQuery,
  CookieJar,
  codeFor,
  makeApp,
  ORIGIN,
  pkce,
  publicClient,
  send,
  sessionOf,
  signedInBrowser,
  signedInClient,
  tokensFor,
} from "./support.js";

const ES256 = { signing: { algorithms: ["ES256" as const] } };

describe("prompt and max_age", () => {
  it("sends a signed-in user to sign in again for prompt=login, and counts only a sign-in made after", async () => {
    const { app, client, jar } = await signedInClient(ES256);
    await codeFor(app, client.clientId, jar);
    const { challenge } = await pkce();
    const first = await send(
      app,
      `/oauth/authorize?${authorizationQuery(client.clientId, challenge, { prompt: "login" })}`,
      { jar },
    );
    const resume = new URL(first.headers.get("location") ?? "").searchParams.get("callbackUrl") ?? "";
    expect(resume).toContain("interaction=");
    // Following the link back without signing in again only leads to the sign-in page again.
    const stale = await send(app, resume.slice(ORIGIN.length), { jar });
    expect(new URL(stale.headers.get("location") ?? "").pathname).toBe("/auth/signin");
    await signedInBrowser(app, jar);
    const fresh = await send(app, resume.slice(ORIGIN.length), { jar });
    expect(new URL(fresh.headers.get("location") ?? "").searchParams.get("code")).toBeTruthy();
  });

  it("sends the user to sign in again when the session is older than max_age", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const app = await makeApp(ES256);
      const client = await publicClient(app);
      const jar = await signedInBrowser(app);
      await codeFor(app, client.clientId, jar);
      vi.setSystemTime(Date.now() + 120_000);
      const { challenge } = await pkce();
      const old = await send(
        app,
        `/oauth/authorize?${authorizationQuery(client.clientId, challenge, { max_age: "60" })}`,
        { jar },
      );
      expect(new URL(old.headers.get("location") ?? "").pathname).toBe("/auth/signin");
      const young = await send(
        app,
        `/oauth/authorize?${authorizationQuery(client.clientId, challenge, { max_age: "600" })}`,
        { jar },
      );
      expect(new URL(young.headers.get("location") ?? "").searchParams.get("code")).toBeTruthy();
    } finally {
      vi.useRealTimers();
    }
  });

  it("puts auth_time, acr, amr and sid in the ID token as Latchkey's session records them", async () => {
    const { app, client, jar } = await signedInClient(ES256);
    const tokens = await tokensFor(app, client.clientId, jar);
    const id = decodeJwt(tokens.id_token ?? "");
    expect(id.acr).toBe("urn:latchkey:acr:1fa");
    expect(id.auth_time).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(typeof id.sid).toBe("string");
    expect(typeof id.at_hash).toBe("string");
  });

  it("puts the claims of the granted scopes in the ID token, as UserInfo gives them, never a reserved claim of the callback's", async () => {
    const { app, client, jar } = await signedInClient(ES256);
    const id = decodeJwt((await tokensFor(app, client.clientId, jar)).id_token ?? "");
    expect(id).toMatchObject({ email: "ada@example.com", email_verified: true, sub: "u1" });
    expect(id).not.toHaveProperty("name"); // "profile" was not asked for
    const hostile = await signedInClient({
      ...ES256,
      claims: () => ({
        sub: "admin",
        iss: "https://evil.example",
        aud: "other",
        nonce: "x",
        acr: "max",
        role: "reader",
      }),
    });
    const forged = decodeJwt((await tokensFor(hostile.app, hostile.client.clientId, hostile.jar)).id_token ?? "");
    expect(forged).toMatchObject({
      sub: "u1",
      iss: ORIGIN,
      aud: hostile.client.clientId,
      nonce: "nonce-456",
      role: "reader",
    });
    expect(forged.acr).toBe("urn:latchkey:acr:1fa");
  });
});

describe("logout", () => {
  let receiver: ReturnType<typeof createServer> | undefined;
  afterEach(() => receiver?.close());

  /** A client's back-channel logout endpoint on loopback: the logout tokens it receives. */
  async function backchannel(): Promise<{ url: string; received: string[] }> {
    const received: string[] = [];
    receiver = createServer((req: IncomingMessage, res) => {
      let body = "";
      req.on("data", (chunk) => {
        body += chunk;
      });
      req.on("end", () => {
        received.push(new URLSearchParams(body).get("logout_token") ?? "");
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver?.listen(0, "127.0.0.1", resolve));
    const { port } = receiver.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}/backchannel`, received };
  }

  it("asks before signing out, then ends every session of the user and tells the client by back-channel", async () => {
    const app = await makeApp(ES256);
    const { url, received } = await backchannel();
    const client = await publicClient(app, {
      postLogoutRedirectUris: ["https://reports.example/bye"],
      backchannelLogoutUri: url,
    });
    const jar = await signedInBrowser(app);
    const other = await signedInBrowser(app);
    const tokens = await tokensFor(app, client.clientId, jar);
    const onlineTokens = await tokensFor(app, client.clientId, jar, { scope: "openid email" });
    const query = new URLSearchParams({
      id_token_hint: tokens.id_token ?? "",
      post_logout_redirect_uri: "https://reports.example/bye",
      state: "s1",
    });
    const ask = await send(app, `/oauth/logout?${query}`, { jar });
    expect(ask.status).toBe(200);
    const page = await ask.text();
    expect(page).toContain("Reports app");
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1] ?? "";
    expect(await sessionOf(app, other)).not.toBeNull();
    const done = await send(app, "/oauth/logout", {
      jar,
      form: {
        csrfToken: field("csrfToken"),
        client_id: field("client_id"),
        post_logout_redirect_uri: field("post_logout_redirect_uri"),
        state: field("state"),
      },
    });
    expect(done.headers.get("location")).toBe("https://reports.example/bye?state=s1");
    expect(await sessionOf(app, jar)).toBeNull();
    expect(await sessionOf(app, other)).toBeNull();
    expect(received).toHaveLength(1);
    const logoutToken = decodeJwt(received[0] ?? "");
    expect(decodeProtectedHeader(received[0] ?? "").typ).toBe("logout+jwt");
    expect(logoutToken).toMatchObject({ iss: ORIGIN, aud: client.clientId, sub: "u1" });
    expect(logoutToken.events).toEqual({ "http://schemas.openid.net/event/backchannel-logout": {} });
    // A refresh token granted offline_access outlives the sessions; one without it ended with them.
    const offline = await send(app, "/oauth/token", {
      form: { grant_type: "refresh_token", refresh_token: tokens.refresh_token ?? "", client_id: client.clientId },
    });
    expect(offline.status).toBe(200);
    const online = await send(app, "/oauth/token", {
      form: {
        grant_type: "refresh_token",
        refresh_token: onlineTokens.refresh_token ?? "",
        client_id: client.clientId,
      },
    });
    expect(online.status).toBe(400);
  });

  it("refuses a post-logout redirect the client did not register, and a sign-out posted without the CSRF token", async () => {
    const { app, client, jar } = await signedInClient(ES256, {
      postLogoutRedirectUris: ["https://reports.example/bye"],
    });
    const query = new URLSearchParams({
      client_id: client.clientId,
      post_logout_redirect_uri: "https://evil.example/",
    });
    const refused = await send(app, `/oauth/logout?${query}`, { jar });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("location")).toBeNull();
    const forged = await send(app, "/oauth/logout", { jar, form: { csrfToken: "forged", client_id: client.clientId } });
    expect(forged.status).toBe(403);
    expect(await sessionOf(app, jar)).not.toBeNull();
  });
});

describe("signing keys", () => {
  it("publishes the next key before it signs and keeps the old one until its tokens expired", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const app = await makeApp({
        ...ES256,
        ttl: { accessToken: 60, idToken: 60 },
        signing: { algorithms: ["ES256"], rotateAfter: 300 },
      });
      const kids = async () =>
        ((await (await send(app, "/oauth/jwks")).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid).sort();
      const signer = async () => {
        const client = await publicClient(app);
        const response = await send(app, "/oauth/token", {
          form: { grant_type: "client_credentials", client_id: client.clientId },
        });
        return response;
      };
      expect(await signer()).toBeDefined();
      const start = await kids();
      expect(start).toHaveLength(2);
      vi.setSystemTime(Math.ceil(Date.now() / 300_000) * 300_000 + 1000);
      const next = await kids();
      expect(next).toHaveLength(3);
      expect(start.every((kid) => next.includes(kid))).toBe(true);
      vi.setSystemTime(Date.now() + 300_000 + 61_000 + 120_000);
      const later = await kids();
      expect(later).not.toContain(start.find((kid) => !next.slice(1).includes(kid)));
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("the users' side", () => {
  it("lists the applications a user authorised and revokes one, ending its tokens at once", async () => {
    const { app, client, jar } = await signedInClient(ES256);
    const tokens = await tokensFor(app, client.clientId, jar);
    const request = new Request(`${ORIGIN}/account`, { headers: { cookie: jar.header() } });
    const apps = await authorizedApps(app.server, request);
    expect(apps?.map((a) => [a.name, a.scopes])).toEqual([["Reports app", ["openid", "email", "offline_access"]]]);
    await expect(revokeAuthorizedApp(app.server, request, client.clientId, { csrfToken: "forged" })).rejects.toThrow(
      /CSRF/,
    );
    const csrf = await getCsrfToken(request, app.config);
    for (const cookie of csrf.cookies) jar.cookies.set(cookie.name, cookie.value);
    const withCsrf = new Request(`${ORIGIN}/account`, { headers: { cookie: jar.header() } });
    expect(await revokeAuthorizedApp(app.server, withCsrf, client.clientId, { csrfToken: csrf.token })).toBe(true);
    expect(await authorizedApps(app.server, withCsrf)).toEqual([]);
    const info = await send(app, "/oauth/userinfo", { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(info.status).toBe(401);
    const refresh = await send(app, "/oauth/token", {
      form: { grant_type: "refresh_token", refresh_token: tokens.refresh_token ?? "", client_id: client.clientId },
    });
    expect(refresh.status).toBe(400);
  });

  it("hands a consent page of the application's own what it shows, for the signed-in user of the interaction only", async () => {
    const { app, client, jar } = await signedInClient({ ...ES256, pages: { consent: "/my-consent" } });
    const { challenge } = await pkce();
    const response = await send(app, `/oauth/authorize?${authorizationQuery(client.clientId, challenge)}`, { jar });
    const page = new URL(response.headers.get("location") ?? "");
    expect(page.pathname).toBe("/my-consent");
    const interaction = page.searchParams.get("interaction");
    const details = await consentDetails(
      app.server,
      new Request(page, { headers: { cookie: jar.header() } }),
      interaction,
    );
    expect(details).toMatchObject({
      clientName: "Reports app",
      redirectHost: "reports.example",
      scopes: ["openid", "email", "offline_access"],
    });
    const grace = await signedInBrowser(app, new CookieJar(), "grace");
    expect(
      await consentDetails(app.server, new Request(page, { headers: { cookie: grace.header() } }), interaction),
    ).toBeNull();
    for (const value of details?.setCookie ?? []) {
      const [pair = ""] = value.split(";");
      const [name = "", cookieValue = ""] = pair.split("=");
      jar.cookies.set(name, cookieValue);
    }
    const answer = await send(app, "/oauth/consent", {
      jar,
      form: { interaction: details?.interaction ?? "", csrfToken: details?.csrfToken ?? "", decision: "allow" },
    });
    expect(new URL(answer.headers.get("location") ?? "").searchParams.get("code")).toBeTruthy();
  });
});

describe("registration", () => {
  it("registers a confidential client with its secret shown once and kept as a digest", async () => {
    const app = await makeApp(ES256);
    const { client, clientSecret } = await registerClient(app.server, {
      name: "Partner",
      redirectUris: ["https://partner.example/cb"],
      scopes: ["openid"],
    });
    expect(client.confidential).toBe(true);
    expect(clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [record] = await app.store.find("client");
    expect(JSON.stringify(record)).not.toContain(clientSecret);
  });
});
