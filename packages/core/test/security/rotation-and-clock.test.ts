/**
 * Faults in process (OWASP ASVS 3.3 session lifetime, spec §5.1 secret rotation, RFC 7519 §4.1.4
 * clock skew): a secret rotated mid-traffic fails no request and keeps old sessions; a clock that
 * is off by up to the 15 s tolerance loses nothing, beyond it errs only on the expiring side, and
 * everything recovers once the clock is right.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { sealToken } from "../../src/lib/crypto/jwe.js";
import { CookieJar, call, csrfToken, makeConfig, signIn } from "../helpers.js";

const OLD = "old-secret-0123456789-abcdefghijklmnopqrs";
const NEW = "new-secret-9876543210-zyxwvutsrqponmlkjih";
const NAME = "authjs.session-token";

afterEach(() => {
  vi.useRealTimers();
});

async function sessionEmail(
  config: ReturnType<typeof makeConfig>,
  jar: CookieJar,
): Promise<{ status: number; email?: string }> {
  const response = await call(config, "/auth/session", { jar });
  const body = (await response.json()) as { user?: { email?: string } } | null;
  return { status: response.status, email: body?.user?.email };
}

describe("secret rotation mid-traffic", () => {
  it("concurrent session reads while a new first secret is added: none fails, old cookies keep working, new cookies use the new secret", async () => {
    const secrets = [OLD];
    const config = makeConfig({ secret: secrets, rateLimit: false, logger: { error() {}, warn() {}, debug() {} } });
    const users = await Promise.all(Array.from({ length: 20 }, () => signIn(config).then((r) => r.jar)));
    const results: Array<{ status: number; email?: string }> = [];
    let rotated = false;
    const traffic = Array.from({ length: 400 }, async (_, i) => {
      if (i === 200) {
        secrets.unshift(NEW); // the rotation, in place, while reads are in flight
        rotated = true;
      }
      results.push(await sessionEmail(config, users[i % users.length] as CookieJar));
    });
    await Promise.all(traffic);
    expect(rotated).toBe(true);
    expect(results).toHaveLength(400);
    expect(results.every((r) => r.status === 200 && r.email === "ada@example.com")).toBe(true);

    // A new sign-in is sealed under the new secret: a config with only the new secret reads it,
    // one with only the old secret does not.
    const { jar } = await signIn(config);
    expect((await sessionEmail(makeConfig({ secret: NEW }), jar)).email).toBe("ada@example.com");
    expect((await sessionEmail(makeConfig({ secret: OLD }), jar)).email).toBeUndefined();
    // An old cookie is still read after the rotation...
    expect((await sessionEmail(config, users[0] as CookieJar)).email).toBe("ada@example.com");
    // ...and CSRF tokens minted before the rotation still verify.
    const early = new CookieJar();
    const before = await csrfToken(makeConfig({ secret: OLD }), early);
    const out = await call(config, "/auth/signout", { jar: early, form: { csrfToken: before } });
    expect(out.headers.get("location")).not.toMatch(/MissingCSRF/);
  });

  it("dropping the old secret ends the old sessions cleanly (no 5xx, cookie cleared)", async () => {
    const { jar } = await signIn(makeConfig({ secret: OLD }));
    const response = await call(makeConfig({ secret: [NEW] }), "/auth/session", { jar });
    expect(response.status).toBe(200);
    expect(await response.json()).toBeNull();
    expect(jar.get(NAME)).toBeUndefined();
  });
});

describe("clock skew at the JWT tolerance edge (15 s)", () => {
  const config = makeConfig({
    secret: OLD,
    session: { maxAge: 60 },
    rateLimit: false,
    logger: { error() {}, warn() {}, debug() {} },
  });

  function jarWith(token: string): CookieJar {
    const jar = new CookieJar();
    jar.cookies.set(NAME, token);
    return jar;
  }

  it("a token that expired up to 14 s ago is still honoured; at 15 s and beyond it is not; nothing else is lost", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = new Date("2030-01-01T00:00:00Z").valueOf();
    vi.setSystemTime(t0);
    const token = await sealToken({ email: "ada@example.com", name: "Ada" }, [OLD], NAME, 60);
    vi.setSystemTime(t0 + (60 + 14) * 1000);
    expect((await sessionEmail(config, jarWith(token))).email).toBe("ada@example.com");
    vi.setSystemTime(t0 + (60 + 15) * 1000);
    const late = await sessionEmail(config, jarWith(token));
    expect(late).toEqual({ status: 200, email: undefined });
    // an issuer whose clock runs 14 s ahead: its fresh tokens are read by a server behind it
    vi.setSystemTime(t0 + 14_000);
    const ahead = await sealToken({ email: "ada@example.com" }, [OLD], NAME, 60);
    vi.setSystemTime(t0);
    expect((await sessionEmail(config, jarWith(ahead))).email).toBe("ada@example.com");
  });

  it("a sign-in made while the clock is 15 s off works, and everything recovers when it is corrected", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const real = Date.now();
    vi.setSystemTime(real - 15_000);
    const { jar } = await signIn(config);
    expect((await sessionEmail(config, jar)).email).toBe("ada@example.com");
    vi.setSystemTime(real + 15_000);
    expect((await sessionEmail(config, jar)).email).toBe("ada@example.com");
    vi.setSystemTime(real);
    const fresh = await signIn(config);
    expect((await sessionEmail(config, fresh.jar)).email).toBe("ada@example.com");
    expect((await sessionEmail(config, jar)).email).toBe("ada@example.com");
  });
});
