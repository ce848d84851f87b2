/**
 * `getAccessToken(req, res, ...)` of `@latchkey/express` over a real socket, JWT sessions: an
 * Express instance (fixtures/instance-refresh.mjs, one process, in-memory refresh store, sessions
 * revoked at sign-out) asks a rotating `oidc-provider` that counts its token-endpoint calls. The
 * refresh re-issues the session cookie on the very response; the attacker's cases replay a stale
 * cookie, a signed-out one, and the same cookie 50 times at once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Jar } from "./helpers.js";
import { childInstances, type Instance } from "./support/instances.js";
import {
  COOKIE,
  login as freshLogin,
  jwtSessions,
  SECRET,
  signIn,
  tokenFrom,
  useRefreshingOP,
} from "./support/refresh.js";

const instances = childInstances();
const provider = useRefreshingOP();
let app: Instance;
const env = () => ({
  AUTH_SECRET: SECRET,
  OP_ISSUER: provider().issuer,
  SESSIONS: "jwt",
  REFRESH_STORE: "memory",
  REVOCATION: "1",
});

beforeAll(async () => {
  app = await instances.start("instance-refresh.mjs", env());
});
afterAll(() => instances.stopAll());

/** A signed-in user's session cookie with the provider's access token expired. */
async function expiredSession(label: string): Promise<string> {
  const name = freshLogin(label);
  return jwtSessions.expire(await signIn(jwtSessions.config(), name), name);
}

describe("getAccessToken over Express (JWT sessions)", () => {
  it("rule: the refresh sets the re-issued session cookie on that response, the new cookie carries the new tokens, and the next request needs no refresh", async () => {
    const expired = await expiredSession("reissue");
    const old = await jwtSessions.tokens(expired, "");
    const calls = provider().tokenCalls();
    const answer = await tokenFrom(app, expired);
    expect(answer.status).toBe(200);
    expect(answer.body.refreshed).toBe(true);
    expect(provider().tokenCalls() - calls).toBe(1);
    const header = answer.setCookie.find((c) => c.startsWith(`${COOKIE}=`)) as string;
    expect(header).toMatch(/; Path=\//);
    expect(header).toMatch(/; HttpOnly/i);
    expect(header).toMatch(/; SameSite=Lax/i);
    const next = await jwtSessions.tokens(answer.cookie as string, "");
    expect(next?.access_token).toBe(answer.body.accessToken);
    expect(next?.refresh_token).not.toBe(old?.refresh_token);
    expect(next?.expires_at).toBeGreaterThan(Date.now() / 1000);
    expect(await provider().accepts(answer.body.accessToken as string)).toBe(true);
    const again = await tokenFrom(app, answer.cookie as string);
    expect(again.body).toMatchObject({ accessToken: answer.body.accessToken, refreshed: false });
    expect(again.setCookie.filter((c) => c.startsWith(`${COOKIE}=`))).toEqual([]);
    expect(provider().tokenCalls() - calls).toBe(1);
  });

  it("rule: the same expired cookie sent 50 times at once to one process causes one refresh; every response gets the token and the re-issued cookie", async () => {
    const expired = await expiredSession("fifty");
    const calls = provider().tokenCalls();
    const answers = await Promise.all(Array.from({ length: 50 }, () => tokenFrom(app, expired)));
    expect(provider().tokenCalls() - calls).toBe(1);
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 50 }, () => 200));
    expect(new Set(answers.map((a) => a.body.accessToken)).size).toBe(1);
    for (const answer of answers) {
      expect((await jwtSessions.tokens(answer.cookie as string, ""))?.access_token).toBe(answer.body.accessToken);
    }
  });

  it("rule: a stale cookie replayed after the rotation gets the new token within the reuse window; once the window is gone the provider's reuse detection ends the grant, typed, once, without a loop", async () => {
    const stale = await expiredSession("replay");
    const first = await tokenFrom(app, stale);
    const calls = provider().tokenCalls();
    // Within the window (another tab, or a thief racing the user): the recorded outcome, no call.
    const late = await tokenFrom(app, stale);
    expect(late.body).toMatchObject({ accessToken: first.body.accessToken });
    expect(provider().tokenCalls()).toBe(calls);
    // A process without the record (restarted: its in-memory records are gone) receives the
    // replay: the provider refuses the rotated token and revokes the grant (RFC 9700 §4.14.2).
    const restarted = await instances.start("instance-refresh.mjs", env());
    const replays = await Promise.all(Array.from({ length: 10 }, () => tokenFrom(restarted, stale)));
    expect(replays.map((r) => [r.status, r.body.error])).toEqual(
      Array.from({ length: 10 }, () => [401, "RefreshTokenRevoked"]),
    );
    expect(provider().tokenCalls() - calls).toBe(1);
    // The 401 re-issues the session marked, so the browser stops asking.
    expect((await jwtSessions.tokens(replays[0]?.cookie as string, ""))?.error).toBe("RefreshTokenRevoked");
    const more = await Promise.all(Array.from({ length: 10 }, () => tokenFrom(restarted, stale)));
    expect(more.every((r) => r.status === 401)).toBe(true);
    expect(provider().tokenCalls() - calls).toBe(1);
    // The grant is gone for the legitimate holder too: its token no longer works, and its next
    // refresh is refused (typed), which is the point of reuse detection.
    expect(await provider().accepts(first.body.accessToken as string)).toBe(false);
    const holder = await jwtSessions.expire(first.cookie as string, "");
    expect((await tokenFrom(app, holder)).body.error).toBe("RefreshTokenRevoked");
    await instances.stop(restarted);
  });

  it("rule: a JWT session due for a refresh on a response whose headers were sent gets ResponseAlreadySent and no provider call: the refresh token is not rotated into a cookie that cannot be set", async () => {
    const expired = await expiredSession("late");
    const before = await jwtSessions.tokens(expired, "");
    const calls = provider().tokenCalls();
    const response = await fetch(`${app.url}/token-late`, { headers: { cookie: `${COOKIE}=${expired}` } });
    expect(response.headers.getSetCookie()).toEqual([]);
    expect(await response.json()).toEqual({ error: "ResponseAlreadySent" });
    expect(provider().tokenCalls()).toBe(calls);
    // The grant was not spent: the same cookie on a response that can carry it refreshes.
    const answer = await tokenFrom(app, expired);
    expect(answer.body.refreshed).toBe(true);
    expect((await jwtSessions.tokens(answer.cookie as string, ""))?.refresh_token).not.toBe(before?.refresh_token);
    // A token that is still valid needs no cookie: the late route hands it out.
    const fresh = await fetch(`${app.url}/token-late`, { headers: { cookie: `${COOKIE}=${answer.cookie}` } });
    expect(await fresh.json()).toEqual({ accessToken: answer.body.accessToken, refreshed: false });
  });

  it("rule: a cookie of a signed-out session gets no token, causes no provider call and sets no session cookie", async () => {
    const expired = await expiredSession("signedout");
    const jar = new Jar();
    jar.cookies.set(COOKIE, expired);
    const { csrfToken } = (await (await jar.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
    const out = await jar.fetch(`${app.url}/auth/signout`, { form: { csrfToken } });
    expect(out.status).toBe(302);
    expect(jar.cookies.has(COOKIE)).toBe(false);
    const calls = provider().tokenCalls();
    const answers = await Promise.all(Array.from({ length: 20 }, () => tokenFrom(app, expired)));
    expect(answers.map((a) => [a.status, a.body.error])).toEqual(Array.from({ length: 20 }, () => [401, "SignedOut"]));
    expect(answers.flatMap((a) => a.setCookie.filter((c) => c.startsWith(`${COOKIE}=`)))).toEqual([]);
    expect(provider().tokenCalls()).toBe(calls);
  });
});
