/**
 * The authorization server against an attacker (RFC 9700 §4, OAuth 2.1 §7, OIDC Core §16,
 * RFC 8252 §8): redirect-URI tricks, PKCE downgrade, code injection and replay, refresh-token
 * theft and reuse, mix-up, token substitution across audiences, consent bypass, CSRF on consent,
 * clickjacking, client impersonation, repeated parameters and a hostile Host, 30 calls at once.
 */
import { describe, expect, it } from "vitest";
import { registerClient } from "../../src/authorization-server.js";
import {
  type App,
  authorizationQuery,
  CookieJar,
  codeFor,
  consentFields,
  errorOf,
  exchange,
  makeApp,
  ORIGIN,
  pkce,
  publicClient,
  send,
  signedInBrowser,
  signedInClient,
  tokensFor,
} from "./support.js";

const ES256 = { signing: { algorithms: ["ES256" as const] } };

const refresh = (app: App, clientId: string, token: string) =>
  send(app, "/oauth/token", { form: { grant_type: "refresh_token", refresh_token: token, client_id: clientId } });

describe("redirect URIs", () => {
  it.each([
    ["javascript:alert(document.cookie)", /run in the browser/],
    ["JaVaScRiPt:alert(1)", /run in the browser/],
    ["data:text/html,<script>alert(1)</script>", /run in the browser/],
    ["https://reports.example/callback#frag", /fragment/],
    ["https://reports.example@evil.example/callback", /user info/],
    ["https://user:pass@reports.example/callback", /user info/],
    ["http://reports.example/callback", /plain http/],
    ["http://127.0.0.1.evil.example/callback", /plain http/],
    ["reports.example/callback", /not an absolute URI/],
    ["https://reports.example/call back", /whitespace/],
    ["https://reports.example\\@evil.example", /backslash/],
    ["myapp:/callback", /reverse-domain/],
  ])("refuses to register %s", async (uri, reason) => {
    const app = await makeApp(ES256);
    await expect(publicClient(app, { redirectUris: [uri] })).rejects.toThrow(reason);
  });

  it.each([
    "https://reports.example/callback/",
    "https://REPORTS.example/callback",
    "https://reports.example/callback?next=https://evil.example",
    "https://reports.example/callback/../evil",
    "https://reports.example.evil.example/callback",
    "https://reports.example@evil.example/callback",
    "https://evil.example/callback",
    "https://reports.example:8443/callback",
    "http://reports.example/callback",
    "https://reports.example/callback#x",
  ])("shows an error page, never a redirect, for the unregistered %s", async (redirectUri) => {
    const { app, client, jar } = await signedInClient(ES256);
    const { challenge } = await pkce();
    const response = await send(
      app,
      `/oauth/authorize?${authorizationQuery(client.clientId, challenge, { redirect_uri: redirectUri })}`,
      { jar },
    );
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect(await response.text()).toContain("not one it registered");
  });

  it("lets a loopback redirect URI take any port, and nothing else", async () => {
    const { app, client, jar } = await signedInClient(ES256, { redirectUris: ["http://127.0.0.1/cb"] });
    const { challenge } = await pkce();
    const query = (uri: string) => authorizationQuery(client.clientId, challenge, { redirect_uri: uri });
    const ok = await send(app, `/oauth/authorize?${query("http://127.0.0.1:51234/cb")}`, { jar });
    expect(ok.status).toBe(200);
    for (const uri of ["http://127.0.0.1:51234/cb2", "http://localhost:51234/cb", "http://127.0.0.2:51234/cb"]) {
      const refused = await send(app, `/oauth/authorize?${query(uri)}`, { jar });
      expect(refused.status).toBe(400);
      expect(refused.headers.get("location")).toBeNull();
    }
  });

  it("shows the error of a request whose client is unknown instead of redirecting anywhere", async () => {
    const app = await makeApp(ES256);
    const { challenge } = await pkce();
    const response = await send(app, `/oauth/authorize?${authorizationQuery("no-such-client", challenge)}`);
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
  });
});

describe("PKCE", () => {
  it.each([
    ["without a challenge", { code_challenge: "" }],
    ["with method plain", { code_challenge_method: "plain" }],
    ["without a method (plain by default)", { code_challenge_method: "" }],
    ["with a challenge that is no S256 digest", { code_challenge: "short" }],
  ])("refuses an authorization request %s, back to the client with iss", async (_name, extra) => {
    const { app, client, jar } = await signedInClient(ES256);
    const { challenge } = await pkce();
    const response = await send(app, `/oauth/authorize?${authorizationQuery(client.clientId, challenge, extra)}`, {
      jar,
    });
    const back = new URL(response.headers.get("location") ?? "");
    expect(back.searchParams.get("error")).toBe("invalid_request");
    expect(back.searchParams.get("iss")).toBe(ORIGIN);
    expect(back.searchParams.get("state")).toBe("state-123");
  });

  it("refuses an exchange with a wrong or missing verifier, and the code is spent", async () => {
    const { app, client, jar } = await signedInClient(ES256);
    const { code, verifier } = await codeFor(app, client.clientId, jar);
    const missing = await exchange(app, client.clientId, code, "");
    expect(await errorOf(missing)).toBe("invalid_request");
    const other = (await pkce()).verifier;
    expect(await errorOf(await exchange(app, client.clientId, code, other))).toBe("invalid_grant");
    expect(await errorOf(await exchange(app, client.clientId, code, verifier))).toBe("invalid_grant");
  });
});

describe("codes", () => {
  it("refuses a code injected into another client's exchange", async () => {
    const app = await makeApp(ES256);
    const victim = await publicClient(app);
    const attacker = await publicClient(app, { name: "Attacker" });
    const jar = await signedInBrowser(app);
    const { code, verifier } = await codeFor(app, victim.clientId, jar);
    expect(await errorOf(await exchange(app, attacker.clientId, code, verifier))).toBe("invalid_grant");
  });

  it("refuses a code exchanged with another redirect URI", async () => {
    const app = await makeApp(ES256);
    const client = await publicClient(app, {
      redirectUris: ["https://reports.example/callback", "https://reports.example/other"],
    });
    const jar = await signedInBrowser(app);
    const { code, verifier } = await codeFor(app, client.clientId, jar);
    const response = await exchange(app, client.clientId, code, verifier, {
      redirect_uri: "https://reports.example/other",
    });
    expect(await errorOf(response)).toBe("invalid_grant");
  });

  it("revokes what a code gave when the code is replayed", async () => {
    const { app, client, jar } = await signedInClient(ES256);
    const { code, verifier } = await codeFor(app, client.clientId, jar);
    const tokens = (await (await exchange(app, client.clientId, code, verifier)).json()) as Record<string, string>;
    expect(await errorOf(await exchange(app, client.clientId, code, verifier))).toBe("invalid_grant");
    expect(await errorOf(await refresh(app, client.clientId, tokens.refresh_token ?? ""))).toBe("invalid_grant");
    const info = await send(app, "/oauth/userinfo", { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(info.status).toBe(401);
    expect(app.logged.warnings).toContain("authorization-code-replayed");
  });

  it("exchanges a code once when 30 exchanges arrive at once", async () => {
    const { app, client, jar } = await signedInClient(ES256);
    const { code, verifier } = await codeFor(app, client.clientId, jar);
    const answers = await Promise.all(Array.from({ length: 30 }, () => exchange(app, client.clientId, code, verifier)));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 400)).toHaveLength(29);
  });
});

describe("refresh tokens", () => {
  it("ends the whole family when a rotated-out refresh token is used again (theft)", async () => {
    const { app, client, jar } = await signedInClient(ES256);
    const stolen = (await tokensFor(app, client.clientId, jar)).refresh_token ?? "";
    const legit = (await (await refresh(app, client.clientId, stolen)).json()) as Record<string, string>;
    expect(await errorOf(await refresh(app, client.clientId, stolen))).toBe("invalid_grant");
    expect(await errorOf(await refresh(app, client.clientId, legit.refresh_token ?? ""))).toBe("invalid_grant");
    const info = await send(app, "/oauth/userinfo", { headers: { authorization: `Bearer ${legit.access_token}` } });
    expect(info.status).toBe(401);
    expect(app.logged.warnings).toContain("refresh-token-reused");
  });

  it("refuses a refresh token presented by another client, and a forged one without ending the family", async () => {
    const app = await makeApp(ES256);
    const client = await publicClient(app);
    const other = await publicClient(app, { name: "Other" });
    const jar = await signedInBrowser(app);
    const token = (await tokensFor(app, client.clientId, jar)).refresh_token ?? "";
    expect(await errorOf(await refresh(app, other.clientId, token))).toBe("invalid_grant");
    const [family = "", generation = ""] = token.split(".");
    const forged = `${family}.${Number(generation) + 1}.${"A".repeat(43)}`;
    expect(await errorOf(await refresh(app, client.clientId, forged))).toBe("invalid_grant");
    // The forgery did not end the family: the real token still works.
    expect((await refresh(app, client.clientId, token)).status).toBe(200);
  });

  it("moves a family on once when 30 refreshes with one token arrive at once", async () => {
    const { app, client, jar } = await signedInClient(ES256);
    const token = (await tokensFor(app, client.clientId, jar)).refresh_token ?? "";
    const answers = await Promise.all(Array.from({ length: 30 }, () => refresh(app, client.clientId, token)));
    expect(answers.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
    expect(answers.filter((r) => r.status === 400).length).toBeGreaterThanOrEqual(29);
  });

  it("refuses a scope the family was not granted", async () => {
    const { app, client, jar } = await signedInClient(ES256);
    const token = (await tokensFor(app, client.clientId, jar)).refresh_token ?? "";
    const wider = await send(app, "/oauth/token", {
      form: {
        grant_type: "refresh_token",
        refresh_token: token,
        client_id: client.clientId,
        scope: "openid reports:read",
      },
    });
    expect(await errorOf(wider)).toBe("invalid_scope");
  });
});

describe("scopes", () => {
  it("refuses a scope the client may not ask for (invalid_scope, back to the client), and a scope the server does not know", async () => {
    const { app, client, jar } = await signedInClient(ES256, { scopes: ["openid", "email"] });
    const { challenge } = await pkce();
    for (const scope of ["openid reports:read", "openid admin"]) {
      const response = await send(
        app,
        `/oauth/authorize?${authorizationQuery(client.clientId, challenge, { scope })}`,
        { jar },
      );
      const back = new URL(response.headers.get("location") ?? "");
      expect(back.searchParams.get("error")).toBe("invalid_scope");
      expect(back.searchParams.get("code")).toBeNull();
    }
  });
});

describe("mix-up and a hostile Host", () => {
  it("names its issuer in every authorization response, errors included, whatever Host the request names", async () => {
    const { app, client, jar } = await signedInClient(ES256);
    const { challenge } = await pkce();
    const hostile = `http://evil.example/oauth/authorize?${authorizationQuery(client.clientId, challenge, { scope: "admin" })}`;
    const response = await send(app, hostile, { jar });
    const back = new URL(response.headers.get("location") ?? "");
    expect(back.searchParams.get("error")).toBe("invalid_scope");
    expect(back.searchParams.get("iss")).toBe(ORIGIN);
    const signedOut = await send(
      app,
      `http://evil.example/oauth/authorize?${authorizationQuery(client.clientId, challenge)}`,
    );
    expect(new URL(signedOut.headers.get("location") ?? "").origin).toBe(ORIGIN);
  });
});

describe("audiences", () => {
  it("refuses at UserInfo a token meant for another resource server", async () => {
    const { app, client, jar } = await signedInClient(ES256);
    const tokens = await tokensFor(app, client.clientId, jar, { resource: "https://api.example" });
    const info = await send(app, "/oauth/userinfo", { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(info.status).toBe(401);
  });

  it("refuses to widen a token's audience beyond what the code granted", async () => {
    const { app, client, jar } = await signedInClient(ES256, {
      resources: ["https://api.example", "https://other.example"],
    });
    const { code, verifier } = await codeFor(app, client.clientId, jar, { resource: "https://api.example" });
    const response = await exchange(app, client.clientId, code, verifier, { resource: "https://other.example" });
    expect(await errorOf(response)).toBe("invalid_target");
  });

  it("refuses at the authorization endpoint a resource the client may not ask for", async () => {
    const { app, client, jar } = await signedInClient(ES256);
    const { challenge } = await pkce();
    const response = await send(
      app,
      `/oauth/authorize?${authorizationQuery(client.clientId, challenge, { resource: "https://evil.example" })}`,
      { jar },
    );
    expect(new URL(response.headers.get("location") ?? "").searchParams.get("error")).toBe("invalid_target");
  });
});

describe("consent", () => {
  it("answers prompt=none with consent_required rather than granting silently", async () => {
    const { app, client, jar } = await signedInClient(ES256);
    const { challenge } = await pkce();
    const response = await send(
      app,
      `/oauth/authorize?${authorizationQuery(client.clientId, challenge, { prompt: "none" })}`,
      { jar },
    );
    const back = new URL(response.headers.get("location") ?? "");
    expect(back.searchParams.get("error")).toBe("consent_required");
    expect(back.searchParams.get("code")).toBeNull();
    const signedOut = await send(
      app,
      `/oauth/authorize?${authorizationQuery(client.clientId, challenge, { prompt: "none" })}`,
    );
    expect(new URL(signedOut.headers.get("location") ?? "").searchParams.get("error")).toBe("login_required");
  });

  async function consentShown(app: App) {
    const client = await publicClient(app);
    const jar = await signedInBrowser(app);
    const { challenge } = await pkce();
    const page = await send(app, `/oauth/authorize?${authorizationQuery(client.clientId, challenge)}`, { jar });
    return { jar, page, fields: consentFields(await page.text()) };
  }

  it("serves the consent page unframeable and uncached", async () => {
    const app = await makeApp(ES256);
    const { page } = await consentShown(app);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("cache-control")).toContain("no-store");
  });

  it("refuses a consent posted without the CSRF token, or from another site even with it", async () => {
    const app = await makeApp(ES256);
    const { jar, fields } = await consentShown(app);
    const noToken = await send(app, "/oauth/consent", {
      jar,
      form: { interaction: fields.interaction, decision: "allow" },
    });
    expect(noToken.status).toBe(403);
    const crossSite: Record<string, string>[] = [
      { "sec-fetch-site": "cross-site" },
      { origin: "https://evil.example" },
    ];
    for (const headers of crossSite) {
      const cross = await send(app, "/oauth/consent", { jar, headers, form: { ...fields, decision: "allow" } });
      expect(cross.status).toBe(403);
      expect(cross.headers.get("location")).toBeNull();
    }
    // The interaction was not spent by the refusals: the user's own answer still counts.
    const own = await send(app, "/oauth/consent", { jar, form: { ...fields, decision: "allow" } });
    expect(new URL(own.headers.get("location") ?? "").searchParams.get("code")).toBeTruthy();
  });

  it("refuses a consent posted by another user for an interaction shown to the first", async () => {
    const app = await makeApp(ES256);
    const { fields } = await consentShown(app);
    const grace = await signedInBrowser(app, new CookieJar(), "grace");
    const csrf =
      (await (await send(app, `/oauth/device`, { jar: grace })).text()).match(
        /name="csrfToken" value="([^"]+)"/,
      )?.[1] ?? "";
    const response = await send(app, "/oauth/consent", {
      jar: grace,
      form: { interaction: fields.interaction, csrfToken: csrf, decision: "allow" },
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
  });

  it("counts a consent once: the same answer posted again is refused", async () => {
    const app = await makeApp(ES256);
    const { jar, fields } = await consentShown(app);
    const first = await send(app, "/oauth/consent", { jar, form: { ...fields, decision: "allow" } });
    expect(first.status).toBe(302);
    const again = await send(app, "/oauth/consent", { jar, form: { ...fields, decision: "allow" } });
    expect(again.status).toBe(400);
  });
});

describe("client impersonation", () => {
  it("refuses a confidential client's id presented without its secret", async () => {
    const app = await makeApp(ES256);
    const { client } = await registerClient(app.server, {
      name: "Confidential",
      redirectUris: ["https://reports.example/callback"],
      scopes: ["openid", "email", "offline_access"],
    });
    const jar = await signedInBrowser(app);
    const { code, verifier } = await codeFor(app, client.clientId, jar);
    const response = await exchange(app, client.clientId, code, verifier);
    expect(response.status).toBe(401);
    expect(await errorOf(response)).toBe("invalid_client");
  });
});

describe("SSRF", () => {
  it("fetches nothing a request names: request_uri and request objects are refused back to the client", async () => {
    const fetched: string[] = [];
    const recording: typeof fetch = async (input) => {
      fetched.push(String(input));
      return new Response(null, { status: 500 });
    };
    const { app, client, jar } = await signedInClient({ ...ES256, fetch: recording });
    const { challenge } = await pkce();
    for (const [param, error] of [
      ["request_uri", "request_uri_not_supported"],
      ["request", "request_not_supported"],
    ]) {
      const extra = {
        [param as string]:
          param === "request_uri" ? "http://169.254.169.254/latest/meta-data/" : "eyJhbGciOiJub25lIn0.e30.",
      };
      const response = await send(app, `/oauth/authorize?${authorizationQuery(client.clientId, challenge, extra)}`, {
        jar,
      });
      const back = new URL(response.headers.get("location") ?? "");
      expect(back.searchParams.get("error")).toBe(error);
      expect(back.searchParams.get("code")).toBeNull();
    }
    expect(fetched).toEqual([]);
  });
});

describe("malformed requests", () => {
  it("refuses repeated parameters: a shown page at the authorization endpoint, invalid_request at the token endpoint", async () => {
    const app = await makeApp(ES256);
    const client = await publicClient(app);
    const { challenge } = await pkce();
    const twice = `/oauth/authorize?${authorizationQuery(client.clientId, challenge)}&client_id=${client.clientId}`;
    const page = await send(app, twice);
    expect(page.status).toBe(400);
    expect(page.headers.get("location")).toBeNull();
    const token = await send(app, "/oauth/token", { form: { grant_type: ["authorization_code", "refresh_token"] } });
    expect(token.status).toBe(400);
    expect(await errorOf(token)).toBe("invalid_request");
  });

  it("answers a JSON body, a wrong method and an oversized body with a 4xx, never a 5xx", async () => {
    const app = await makeApp(ES256);
    const json = await app.server.fetch(
      new Request(`${ORIGIN}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      }),
    );
    expect(json?.status).toBe(400);
    expect((await app.server.fetch(new Request(`${ORIGIN}/oauth/token`)))?.status).toBe(405);
    const big = await app.server.fetch(
      new Request(`${ORIGIN}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `grant_type=${"a".repeat(70_000)}`,
      }),
    );
    expect(big?.status).toBe(413);
  });
});
