/**
 * Adversarial review (feat-n): `amr` (how the session's user signed in) is what
 * `requireAuth(config, { factors: 2 })` / `sessionReadOf` decide on. Latchkey keeps the session's
 * `sid` and `auth_time` across every re-issue "whatever the jwt callback returned"
 * (`keepSessionIdentity`), but not `amr`: a session update (`POST /auth/session` with `data`)
 * through a `jwt` callback that merges the update into the token (Auth.js's "update the session"
 * pattern) lets a one-factor session claim a second factor it never gave.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { base32Decode, hotp, TOTP_PERIOD, timeStep } from "../../src/lib/flows/second-factor/totp.js";
import { sessionReadOf } from "../../src/lib/session/request-read.js";
import { createMemoryStore, MemoryAdapter } from "../../src/memory-adapter.js";
import Credentials from "../../src/providers/credentials.js";
import TOTP from "../../src/providers/totp.js";
import { confirmTotpEnrolment, startTotpEnrolment } from "../../src/second-factor.js";
import type { AuthConfig } from "../../src/types.js";
import { CookieJar, call, csrfToken, recordingLogger, SECRET } from "../helpers.js";

const users: Record<string, { id: string; password: string; email: string }> = {
  ada: { id: "u-ada", password: "lovelace", email: "ada@example.com" },
  bob: { id: "u-bob", password: "builder", email: "bob@example.com" },
};

function setup(jwt: NonNullable<AuthConfig["callbacks"]>["jwt"]): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    adapter: MemoryAdapter(createMemoryStore()),
    session: { strategy: "jwt" },
    logger: recordingLogger().logger,
    rateLimit: false,
    providers: [
      Credentials({
        credentials: { username: {}, password: { type: "password" } },
        authorize: async (c) => {
          const user = users[String(c.username)];
          return user && user.password === c.password
            ? { id: user.id, email: user.email, name: String(c.username) }
            : null;
        },
      }),
      TOTP({ issuer: "Latchkey Test" }),
    ],
    callbacks: { jwt },
  } as AuthConfig;
}

async function password(config: AuthConfig, name: string, jar = new CookieJar()) {
  const csrf = await csrfToken(config, jar);
  await call(config, "/auth/callback/credentials", {
    jar,
    form: { csrfToken: csrf, username: name, password: (users[name] as { password: string }).password },
  });
  return jar;
}

const factorsOf = async (config: AuthConfig, jar: CookieJar) =>
  (await sessionReadOf({ protocol: "http", host: "localhost:3000", cookieHeader: jar.header() }, config)).amr ?? [];

/** requireAuth's test for `factors: 2` (packages/express/src/index.ts). */
const passesTwoFactors = (amr: string[]) => new Set(amr).size >= 2;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Math.floor(Date.now() / 1000 / TOTP_PERIOD) * TOTP_PERIOD * 1000 + 15_000);
});
afterEach(() => {
  vi.useRealTimers();
});

describe("amr belongs to Latchkey, like sid and auth_time: no session update or jwt callback changes it", () => {
  it("rule: a one-factor session cannot claim a second factor through POST /auth/session (merging jwt callback)", async () => {
    // The Auth.js pattern for `update()`: merge what the client sent into the token.
    const config = setup(({ token, trigger, session }) =>
      trigger === "update" && session && typeof session === "object" ? { ...token, ...session } : token,
    );
    // bob has no second factor: one factor, recorded as such.
    const jar = await password(config, "bob");
    expect(await factorsOf(config, jar)).toEqual(["pwd"]);
    expect(passesTwoFactors(await factorsOf(config, jar))).toBe(false);

    const csrf = await csrfToken(config, jar);
    await call(config, "/auth/session", { jar, json: { csrfToken: csrf, data: { amr: ["pwd", "otp"] } } });
    const after = await factorsOf(config, jar);
    expect(after, "a session update must not add a factor").toEqual(["pwd"]);
    expect(passesTwoFactors(after)).toBe(false);
  });

  it("rule: a two-factor session keeps its amr when the jwt callback returns a new object (no silent downgrade)", async () => {
    const config = setup(({ token }) => ({ sub: token.sub, email: token.email, name: token.name }));
    const enrolment = await startTotpEnrolment(config, { id: "u-ada", label: "ada@example.com" });
    const code = (step: number) => hotp(base32Decode(enrolment.secret) as Buffer, step);
    expect((await confirmTotpEnrolment(config, "u-ada", code(timeStep()))).ok).toBe(true);
    vi.setSystemTime(Date.now() + TOTP_PERIOD * 1000);
    const jar = await password(config, "ada");
    const csrf = await csrfToken(config, jar);
    await call(config, "/auth/callback/totp", { jar, form: { csrfToken: csrf, code: code(timeStep()) } });
    const { session } = await sessionReadOf(
      { protocol: "http", host: "localhost:3000", cookieHeader: jar.header() },
      config,
    );
    expect(session?.user?.email, "signed in with both factors").toBe("ada@example.com");
    // The sign-in's own jwt callback already returns a new object: amr is gone from the start, so a
    // two-factor user fails every `factors: 2` guard (fail-closed, but silent).
    expect(await factorsOf(config, jar)).toEqual(["pwd", "otp"]);
  });
});
