import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { customFetch } from "../../src/index.js";
import MicrosoftEntraID from "../../src/providers/microsoft-entra-id.js";
import { CookieJar, call, csrfToken, makeConfig, ORIGIN, recordingLogger } from "../helpers.js";

// Microsoft Entra's multi-tenant endpoint ("common") publishes the issuer template
// https://login.microsoftonline.com/{tenantid}/v2.0; every id_token names its tenant in `tid` and
// carries that tenant's issuer. The provider's hosts are served here through customFetch.

const TENANT = "9188040d-6c67-4c5b-b112-36a304b66dad";
const HOST = "https://login.microsoftonline.com";
let signingKey: CryptoKey;
let strangerKey: CryptoKey;
let jwk: JWK;

beforeAll(async () => {
  const pair = await generateKeyPair("RS256");
  signingKey = pair.privateKey as CryptoKey;
  jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "RS256", use: "sig" };
  strangerKey = (await generateKeyPair("RS256")).privateKey as CryptoKey;
});

interface TokenPlan {
  iss?: string;
  tid?: string;
  key?: CryptoKey;
}

/** The provider's discovery, token and key endpoints; `plan` shapes the next id_token. */
function entra(state: { nonce?: string; plan: TokenPlan }) {
  return async (input: string | URL | Request): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input);
    const json = (body: unknown) => Response.json(body, { headers: { "content-type": "application/json" } });
    if (url.pathname === "/common/v2.0/.well-known/openid-configuration") {
      return json({
        issuer: `${HOST}/{tenantid}/v2.0`,
        authorization_endpoint: `${HOST}/common/oauth2/v2.0/authorize`,
        token_endpoint: `${HOST}/common/oauth2/v2.0/token`,
        jwks_uri: `${HOST}/common/discovery/v2.0/keys`,
        response_types_supported: ["code"],
        subject_types_supported: ["pairwise"],
        id_token_signing_alg_values_supported: ["RS256"],
      });
    }
    if (url.pathname === "/common/discovery/v2.0/keys") return json({ keys: [jwk] });
    if (url.pathname === "/common/oauth2/v2.0/token") {
      const { plan } = state;
      const tid = plan.tid ?? TENANT;
      const idToken = await new SignJWT({
        tid,
        nonce: state.nonce,
        name: "Megan Bowen",
        email: "megan@contoso.example",
        ver: "2.0",
      })
        .setProtectedHeader({ alg: "RS256", kid: "k1" })
        .setIssuer(plan.iss ?? `${HOST}/${tid}/v2.0`)
        .setAudience("entra-client")
        .setSubject("AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ")
        .setIssuedAt()
        .setExpirationTime("1h")
        .sign(plan.key ?? signingKey);
      return json({ access_token: "at", token_type: "Bearer", expires_in: 3600, id_token: idToken });
    }
    return new Response("not found", { status: 404 });
  };
}

async function signInWith(plan: TokenPlan) {
  const state: { nonce?: string; plan: TokenPlan } = { plan };
  const { logger, errors } = recordingLogger();
  const config = makeConfig({
    logger,
    providers: [MicrosoftEntraID({ clientId: "entra-client", clientSecret: "s", [customFetch]: entra(state) })],
  });
  const jar = new CookieJar();
  const token = await csrfToken(config, jar);
  const start = await call(config, "/auth/signin/microsoft-entra-id", { jar, form: { csrfToken: token } });
  const authorize = new URL(start.headers.get("location") as string);
  expect(authorize.origin + authorize.pathname).toBe(`${HOST}/common/oauth2/v2.0/authorize`);
  state.nonce = authorize.searchParams.get("nonce") ?? undefined;
  const query = new URLSearchParams({ code: "the-code" });
  const returnedState = authorize.searchParams.get("state");
  if (returnedState) query.set("state", returnedState);
  const callback = await call(config, `/auth/callback/microsoft-entra-id?${query}`, { jar });
  const session = await (await call(config, "/auth/session", { jar })).json();
  return { callback, session, errors };
}

describe("Microsoft Entra ID, multi-tenant (common)", () => {
  it("signs in a user of any tenant: iss is checked against the template filled with the token's tid", async () => {
    const { callback, session, errors } = await signInWith({});
    expect(errors).toEqual([]);
    expect(new URL(callback.headers.get("location") as string).href).toBe(new URL(ORIGIN).href);
    expect(session).toMatchObject({ user: { name: "Megan Bowen", email: "megan@contoso.example" } });
  });
  it("refuses an id_token whose iss names another tenant than its tid", async () => {
    const { callback, session } = await signInWith({ iss: `${HOST}/00000000-0000-0000-0000-000000000000/v2.0` });
    expect(callback.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=OAuthCallbackError`);
    expect(session).toBeNull();
  });
  it("refuses an id_token from another issuer host, or without a tenant", async () => {
    for (const plan of [{ iss: `https://evil.example/${TENANT}/v2.0` }, { tid: "../x" }]) {
      const { callback, session } = await signInWith(plan);
      expect(callback.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=OAuthCallbackError`);
      expect(session).toBeNull();
    }
  });
  it("refuses an id_token signed by a key the provider does not publish", async () => {
    const { callback, session } = await signInWith({ key: strangerKey });
    expect(callback.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=OAuthCallbackError`);
    expect(session).toBeNull();
  });
});
