/**
 * Credentials failures reveal nothing (OWASP ASVS 2.2.1 / 2.5.x generic errors, spec §5.9): an
 * unknown user, a wrong password, a missing field and a throwing CredentialsSignin all get the
 * same redirect, the same body and the same cookies; with the demo's scrypt hashing, an unknown
 * user and a wrong password take comparable time.
 */
import { describe, expect, inject, it } from "vitest";
import { checkPassword } from "../../../../examples/express-demo/src/users.js";
import { type AuthConfig, CredentialsSignin } from "../../src/index.js";
import Credentials from "../../src/providers/credentials.js";
import { CookieJar, call, csrfToken, SECRET } from "../helpers.js";

function demoApp(overrides: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    rateLimit: false,
    logger: { error() {}, warn() {}, debug() {} },
    providers: [
      Credentials({
        credentials: { email: { label: "E-mail" }, password: { label: "Password", type: "password" } },
        authorize: async (c) => {
          // the demo's check returns the address it verified, or null
          const email = await checkPassword(c.email, c.password);
          return email ? { id: email, email } : null;
        },
      }),
    ],
    ...overrides,
  };
}

/** Everything observable about a failed attempt: status, Location, body and Set-Cookie lines. */
async function attempt(config: AuthConfig, form: Record<string, string>) {
  const jar = new CookieJar();
  const token = await csrfToken(config, jar);
  const started = performance.now();
  const response = await call(config, "/auth/callback/credentials", { jar, form: { csrfToken: token, ...form } });
  const elapsed = performance.now() - started;
  return {
    elapsed,
    seen: {
      status: response.status,
      location: response.headers.get("location"),
      body: await response.text(),
      cookies: response.headers.getSetCookie(),
      session: jar.get("authjs.session-token"),
    },
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

describe("credentials failures reveal nothing about which field was wrong", () => {
  it("unknown user, wrong password, missing fields: the same redirect, body and cookies", async () => {
    const config = demoApp();
    const cases = {
      unknownUser: await attempt(config, { email: "nobody@example.com", password: "demo-password" }),
      wrongPassword: await attempt(config, { email: "demo@example.com", password: "wrong-password" }),
      noPassword: await attempt(config, { email: "demo@example.com" }),
      noUser: await attempt(config, { password: "demo-password" }),
      empty: await attempt(config, { email: "", password: "" }),
    };
    const reference = cases.unknownUser.seen;
    expect(reference.status).toBe(302);
    expect(reference.location).toBe("http://localhost:3000/auth/signin?error=CredentialsSignin&code=credentials");
    expect(reference.session).toBeUndefined();
    for (const [name, { seen }] of Object.entries(cases)) expect(seen, name).toEqual(reference);
    // control: the right password does sign in
    const ok = await attempt(config, { email: "demo@example.com", password: "demo-password" });
    expect(ok.seen.session).toBeTruthy();
  });

  it("a CredentialsSignin thrown by authorize() looks exactly like a null return", async () => {
    const throwing = demoApp({
      providers: [
        Credentials({
          credentials: { email: {}, password: {} },
          authorize: () => {
            throw new CredentialsSignin("the password of demo@example.com was wrong");
          },
        }),
      ],
    });
    const a = await attempt(throwing, { email: "demo@example.com", password: "x" });
    const b = await attempt(demoApp(), { email: "nobody@example.com", password: "x" });
    expect(a.seen).toEqual(b.seen);
    expect(a.seen.location).not.toMatch(/password|demo/);
  });

  it(
    "an unknown user and a wrong password take comparable time with the demo's scrypt hashing",
    async () => {
      const config = demoApp();
      await attempt(config, { email: "warm@example.com", password: "x" });
      const unknown: number[] = [];
      const wrong: number[] = [];
      for (let i = 0; i < 9; i++) {
        unknown.push((await attempt(config, { email: `nobody${i}@example.com`, password: "guess" })).elapsed);
        wrong.push((await attempt(config, { email: "demo@example.com", password: `guess${i}` })).elapsed);
      }
      const [u, w] = [median(unknown), median(wrong)];
      // scrypt dominates both; without the decoy hash an unknown user answers many times faster
      expect(u / w).toBeGreaterThan(0.5);
      expect(u / w).toBeLessThan(2);
      // The demo hashes with the library's defaults (scrypt N = 2^17): about a second per attempt on
      // a loaded two-core machine, for 19 attempts.
    },
    120_000 * inject("timeScale"),
  );
});
