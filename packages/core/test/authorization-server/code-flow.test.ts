/**
 * The authorization code grant end to end, in process: metadata, sign-in and consent through
 * Latchkey's session, the code with `iss` and `state`, the exchange with PKCE, the tokens (a
 * JWT access token per RFC 9068, an ID token, a rotating refresh token), UserInfo.
 */
import { decodeProtectedHeader } from "jose";
import { describe, expect, it } from "vitest";
import {
  authorizationQuery,
  authorizeInBrowser,
  CookieJar,
  codeFor,
  exchange,
  makeApp,
  ORIGIN,
  pkce,
  publicClient,
  send,
  signedInBrowser,
  signedInClient,
  verifyWithJwks,
} from "./support.js";

describe("metadata", () => {
  it("serves one document naming the exact issuer at RFC 8414's path and at both OpenID Discovery paths", async () => {
    const app = await makeApp({ issuer: `${ORIGIN}/tenant` });
    for (const path of [
      "/.well-known/oauth-authorization-server/tenant",
      "/tenant/.well-known/openid-configuration",
      "/.well-known/openid-configuration/tenant",
    ]) {
      const response = await send(app, path);
      expect(response.status).toBe(200);
      const document = (await response.json()) as Record<string, unknown>;
      expect(document.issuer).toBe(`${ORIGIN}/tenant`);
      expect(document.token_endpoint).toBe(`${ORIGIN}/tenant/oauth/token`);
      expect(document.code_challenge_methods_supported).toEqual(["S256"]);
      expect(document.authorization_response_iss_parameter_supported).toBe(true);
    }
    expect(await app.server.fetch(new Request(`${ORIGIN}/.well-known/oauth-authorization-server`))).toBeUndefined();
  });

  it("answers no path outside its own, so the application serves those", async () => {
    const app = await makeApp();
    expect(await app.server.fetch(new Request(`${ORIGIN}/auth/session`))).toBeUndefined();
    expect(await app.server.fetch(new Request(`${ORIGIN}/oauth/token/`))).toBeUndefined();
  });
});

describe("authorization code with PKCE", () => {
  it("sends a signed-out browser to Latchkey's sign-in page and resumes the request after it", async () => {
    const app = await makeApp();
    const client = await publicClient(app);
    const { challenge } = await pkce();
    const jar = new CookieJar();
    const first = await send(app, `/oauth/authorize?${authorizationQuery(client.clientId, challenge)}`, { jar });
    expect(first.status).toBe(302);
    const signInPage = new URL(first.headers.get("location") ?? "");
    expect(signInPage.pathname).toBe("/auth/signin");
    const resume = signInPage.searchParams.get("callbackUrl") ?? "";
    expect(resume.startsWith(`${ORIGIN}/oauth/authorize?interaction=`)).toBe(true);
    await signedInBrowser(app, jar);
    const consent = await send(app, resume.slice(ORIGIN.length), { jar });
    expect(consent.status).toBe(200);
    const page = await consent.text();
    expect(page).toContain("Reports app");
    expect(page).toContain("reports.example");
  });

  it("answers the code with state and iss, and exchanges it once for an at+jwt access token, an ID token and a refresh token", async () => {
    const { app, client, jar } = await signedInClient();
    const { code, verifier, back } = await codeFor(app, client.clientId, jar, { resource: "https://api.example" });
    expect(`${back.origin}${back.pathname}`).toBe("https://reports.example/callback");
    expect(back.searchParams.get("state")).toBe("state-123");
    expect(back.searchParams.get("iss")).toBe(ORIGIN);

    const response = await exchange(app, client.clientId, code, verifier);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const tokens = (await response.json()) as Record<string, string>;
    expect(tokens.token_type).toBe("Bearer");
    expect(tokens.scope).toBe("openid email offline_access");

    expect(decodeProtectedHeader(tokens.access_token ?? "").typ).toBe("at+jwt");
    const access = await verifyWithJwks(app, tokens.access_token ?? "", {
      typ: "at+jwt",
      audience: "https://api.example",
    });
    expect(access).toMatchObject({ sub: "u1", client_id: client.clientId, scope: "openid email offline_access" });
    expect(typeof access.jti).toBe("string");
    expect(typeof access.auth_time).toBe("number");

    const id = await verifyWithJwks(app, tokens.id_token ?? "", { audience: client.clientId });
    expect(id).toMatchObject({ sub: "u1", nonce: "nonce-456" });
    expect(typeof id.auth_time).toBe("number");
    expect(typeof id.sid).toBe("string");
    expect(typeof tokens.refresh_token).toBe("string");

    const again = await exchange(app, client.clientId, code, verifier);
    expect(again.status).toBe(400);
    expect(((await again.json()) as { error: string }).error).toBe("invalid_grant");
  });

  it("skips the consent page once the user's grant covers the request", async () => {
    const { app, client, jar } = await signedInClient();
    await codeFor(app, client.clientId, jar);
    const { challenge } = await pkce();
    const direct = await send(app, `/oauth/authorize?${authorizationQuery(client.clientId, challenge)}`, { jar });
    expect(direct.status).toBe(302);
    expect(new URL(direct.headers.get("location") ?? "").searchParams.get("code")).toBeTruthy();
    const wider = await send(
      app,
      `/oauth/authorize?${authorizationQuery(client.clientId, challenge, { scope: "openid profile" })}`,
      { jar },
    );
    expect(wider.status).toBe(200);
    expect(await wider.text()).toContain("See your name and picture");
  });

  it("gives UserInfo the claims of the token's scopes", async () => {
    const { app, client, jar } = await signedInClient();
    const { code, verifier } = await codeFor(app, client.clientId, jar);
    const tokens = (await (await exchange(app, client.clientId, code, verifier)).json()) as Record<string, string>;
    const info = await send(app, "/oauth/userinfo", { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(info.status).toBe(200);
    expect(await info.json()).toEqual({ sub: "u1", email: "ada@example.com", email_verified: true });
  });

  it("rotates a public client's refresh token at each use", async () => {
    const { app, client, jar } = await signedInClient();
    const { code, verifier } = await codeFor(app, client.clientId, jar);
    const first = (await (await exchange(app, client.clientId, code, verifier)).json()) as Record<string, string>;
    const refresh = (token: string) =>
      send(app, "/oauth/token", {
        form: { grant_type: "refresh_token", refresh_token: token, client_id: client.clientId },
      });
    const second = await refresh(first.refresh_token ?? "");
    expect(second.status).toBe(200);
    const rotated = (await second.json()) as Record<string, string>;
    expect(rotated.refresh_token).not.toBe(first.refresh_token);
    const third = await refresh(rotated.refresh_token ?? "");
    expect(third.status).toBe(200);
  });

  it("denies with access_denied, state and iss when the user says no", async () => {
    const { app, client, jar } = await signedInClient();
    const { challenge } = await pkce();
    const back = await authorizeInBrowser(app, jar, authorizationQuery(client.clientId, challenge), "deny");
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("state")).toBe("state-123");
    expect(back.searchParams.get("iss")).toBe(ORIGIN);
  });
});
