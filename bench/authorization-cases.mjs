/**
 * The cases of bench/authorization.mjs, shared with its harness test (bench/test/authorization.test.ts):
 * the apps, what each member of a case sends, and the check of a right answer, so the numbers
 * measure real work (a code exchange that gives tokens, a resource route that lets the token in).
 */
import { fileURLToPath } from "node:url";
import { send } from "./lib.mjs";

/** The server processes (bench/authorization-server.mjs). */
export const SERVER_FILE = fileURLToPath(new URL("./authorization-server.mjs", import.meta.url));
export const APPS = ["latchkey", "oidc-provider"];

const json = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};
const TOKEN_PATH = { latchkey: "/oauth/token", "oidc-provider": "/token" };
const form = (m, body) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded", authorization: m.basic },
  body,
});
const isTokens = (withIdToken) => (r) => {
  const body = json(r.body);
  if (typeof body?.access_token !== "string") return "no access_token";
  if (withIdToken && typeof body.id_token !== "string") return "no id_token";
  return null;
};

/**
 * The cases. Each member is an app and the request it is sent; `amount` cases spend what the
 * request carries (a code per request) and are run by count instead of by time.
 */
export const CASES = [
  {
    id: "code",
    title:
      "token endpoint: authorization code exchange (PKCE, client_secret_basic; opaque access token + RS256 ID token)",
    members: ["oidc-provider", "latchkey"].map((app) => ({
      app,
      request: (m, bodies) => ({ path: TOKEN_PATH[app], ...form(m, bodies[0]), bodies }),
    })),
    amount: true,
    check: isTokens(true),
  },
  {
    id: "refresh",
    title: "token endpoint: refresh (confidential client, not rotated; opaque access token + RS256 ID token)",
    members: ["oidc-provider", "latchkey"].map((app) => ({
      app,
      request: (m) => ({ path: TOKEN_PATH[app], ...form(m, m.refreshBody) }),
    })),
    check: isTokens(false),
  },
  {
    id: "client-credentials",
    title: "token endpoint: client credentials (client_secret_basic; opaque access token)",
    members: ["oidc-provider", "latchkey"].map((app) => ({
      app,
      request: (m) => ({ path: TOKEN_PATH[app], ...form(m, m.clientCredentialsBody) }),
    })),
    check: isTokens(false),
  },
  {
    id: "resource",
    title: "resource server: GET /api behind verifyAccessToken (RS256 JWT, audience, scope) vs the bare route",
    members: [
      { app: "latchkey", label: "bare route", request: () => ({ method: "GET", path: "/bare" }) },
      {
        app: "latchkey",
        label: "verifyAccessToken",
        request: (m) => ({ method: "GET", path: "/api", headers: { authorization: `Bearer ${m.accessToken}` } }),
      },
      // Not Latchkey: what the RS256 signature alone costs behind the same middleware (jose, then
      // Node's synchronous crypto.verify), to tell the check's own cost from the signature's.
      {
        app: "latchkey",
        label: "signature only (jose jwtVerify)",
        request: (m) => ({ method: "GET", path: "/api-jose", headers: { authorization: `Bearer ${m.accessToken}` } }),
      },
      {
        app: "latchkey",
        label: "signature only (node:crypto verify, sync)",
        request: (m) => ({ method: "GET", path: "/api-node", headers: { authorization: `Bearer ${m.accessToken}` } }),
      },
    ],
    check: (r) => (json(r.body)?.ok === true ? null : "not { ok: true }"),
  },
];

/** A member's name in the report. */
export const labelOf = (member) => member.label ?? member.app;

/** What the cases need from a started server (its client's credentials, a refresh token, a JWT). */
export async function materialOf(server) {
  const answer = await server.ask("material", 120_000);
  if (answer.error) throw new Error(`${server.app}: ${answer.error}`);
  return answer;
}

/** The request `member` of `kase` sends, with `n` fresh codes when the case spends them. */
export async function memberRequest(kase, member, server, material, n) {
  let bodies;
  if (kase.amount) {
    const answer = await server.ask(`codes:${n}`, 600_000);
    if (answer.error) throw new Error(`${server.app}: ${answer.error}`);
    bodies = answer.bodies;
  }
  return member.request(material, bodies);
}

/** One request of `member`: null when the answer is right, else what is wrong. */
export async function verifyMember(kase, member, server, material) {
  const request = await memberRequest(kase, member, server, material, 1);
  const answer = await send(server.port, request);
  if (answer.status !== 200) return `status ${answer.status}: ${answer.body.slice(0, 300)}`;
  return kase.check(answer);
}
