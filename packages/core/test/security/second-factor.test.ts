import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Adapter } from "../../src/adapters.js";
import { base32Decode, base32Encode, hotp, TOTP_PERIOD, timeStep } from "../../src/lib/flows/second-factor/totp.js";
import { createMemoryStore, MemoryAdapter } from "../../src/memory-adapter.js";
import Credentials from "../../src/providers/credentials.js";
import TOTP from "../../src/providers/totp.js";
import { revokeUserSessions as revokeJwtUserSessions } from "../../src/revocation.js";
import {
  confirmTotpEnrolment,
  disableTotp,
  regenerateBackupCodes,
  secondFactorStatus,
  startTotpEnrolment,
} from "../../src/second-factor.js";
import { revokeOtherSessions, revokeUserSessions } from "../../src/sessions.js";
import type { AuthConfig } from "../../src/types.js";
import { CookieJar, call, csrfToken, recordingLogger, SECRET, testSecret } from "../helpers.js";

const users: Record<string, { id: string; password: string; email: string }> = {
  ada: { id: "u-ada", password: "lovelace", email: "ada@example.com" },
  bob: { id: "u-bob", password: "builder", email: "bob@example.com" },
};

/** `databaseSessions`: the Credentials provider's opt-in, for `session.strategy: "database"`. */
function setup(overrides: Partial<AuthConfig> = {}, { databaseSessions = false } = {}) {
  const store = createMemoryStore();
  const seen: { jwt: unknown[]; session: unknown[] } = { jwt: [], session: [] };
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter: MemoryAdapter(store),
    session: { strategy: "jwt" },
    logger: recordingLogger().logger,
    providers: [
      Credentials({
        databaseSessions,
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
    callbacks: {
      jwt: ({ token }) => {
        seen.jwt.push(token.amr);
        return token;
      },
      session: ({ session, token }) => {
        seen.session.push(token.amr);
        return { ...session, amr: token.amr };
      },
    },
    ...overrides,
  };
  return { config, store, seen };
}

/** The code an authenticator app holding `secret` shows at time step `step`. */
function codeAt(secret: string, step: number): string {
  return hotp(base32Decode(secret) as Buffer, step);
}

async function enrol(config: AuthConfig, name: string) {
  const user = users[name] as { id: string; email: string };
  const enrolment = await startTotpEnrolment(config, { id: user.id, label: user.email });
  const confirmed = await confirmTotpEnrolment(config, user.id, codeAt(enrolment.secret, timeStep()));
  if (!confirmed.ok) throw new Error("enrolment was not confirmed");
  return { ...enrolment, backupCodes: confirmed.backupCodes };
}

/** First factor: password. Returns the jar (holding the pending cookie) and the answer. */
async function password(config: AuthConfig, name: string, jar = new CookieJar()) {
  const csrf = await csrfToken(config, jar);
  const response = await call(config, "/auth/callback/credentials", {
    jar,
    form: { csrfToken: csrf, username: name, password: (users[name] as { password: string }).password },
  });
  return { jar, response, csrf };
}

async function submitCode(config: AuthConfig, jar: CookieJar, code: string) {
  const csrf = await csrfToken(config, jar);
  return call(config, "/auth/callback/totp", { jar, form: { csrfToken: csrf, code } });
}

async function sessionOf(config: AuthConfig, jar: CookieJar) {
  const response = await call(config, "/auth/session", { jar });
  return (await response.json()) as { user?: { email?: string }; amr?: string[] } | null;
}

const SESSION = "authjs.session-token";
const PENDING = "latchkey.second-factor";

beforeEach(() => {
  // Only the clock is faked, to the middle of a time step, so "the next-but-one step" is
  // exactly that however long a test takes; timers and I/O stay real.
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Math.floor(Date.now() / 1000 / TOTP_PERIOD) * TOTP_PERIOD * 1000 + 15_000);
});
afterEach(() => {
  vi.useRealTimers();
});

describe("TOTP arithmetic (RFC 4226 Appendix D, RFC 6238 Appendix B)", () => {
  it("computes the published HOTP and TOTP values", () => {
    const key = Buffer.from("12345678901234567890");
    const rfc4226 = [
      "755224",
      "287082",
      "359152",
      "969429",
      "338314",
      "254676",
      "287922",
      "162583",
      "399871",
      "520489",
    ];
    for (const [counter, value] of rfc4226.entries()) expect(hotp(key, counter)).toBe(value);
    // RFC 6238 SHA-1 vectors, last six of the eight digits: T = 59 s and T = 1111111109 s.
    expect(hotp(key, Math.floor(59 / 30))).toBe("287082");
    expect(hotp(key, Math.floor(1111111109 / 30))).toBe("081804");
    expect(base32Decode(base32Encode(key))).toEqual(new Uint8Array(key));
  });
});

describe("enrolment", () => {
  it("makes a 160-bit secret, shown as an otpauth URI and a QR code, inactive until a first valid code", async () => {
    const { config, store } = setup();
    const enrolment = await startTotpEnrolment(config, { id: "u-ada", label: "ada@example.com" });
    expect(base32Decode(enrolment.secret)?.length).toBe(20);
    const uri = new URL(enrolment.uri);
    expect(uri.protocol).toBe("otpauth:");
    expect(uri.searchParams.get("secret")).toBe(enrolment.secret);
    expect(uri.searchParams.get("issuer")).toBe("Latchkey Test");
    expect(enrolment.qrSvg.startsWith("<svg")).toBe(true);
    expect(enrolment.qrDataUrl.startsWith("data:image/svg+xml;base64,")).toBe(true);
    expect((await secondFactorStatus(config, "u-ada")).active).toBe(false);
    // Stored sealed: the raw secret appears nowhere in the store.
    const stored = store.secondFactors?.get("u-ada");
    expect(JSON.stringify(stored?.record)).not.toContain(enrolment.secret);

    const wrong = String((Number(codeAt(enrolment.secret, timeStep())) + 1) % 1_000_000).padStart(6, "0");
    expect(await confirmTotpEnrolment(config, "u-ada", wrong)).toEqual({ ok: false, reason: "invalid" });
    const confirmed = await confirmTotpEnrolment(config, "u-ada", codeAt(enrolment.secret, timeStep()));
    expect(confirmed.ok).toBe(true);
    if (!confirmed.ok) return;
    expect(confirmed.backupCodes).toHaveLength(10);
    expect(new Set(confirmed.backupCodes).size).toBe(10);
    // Backup codes are stored hashed only.
    const hashes = [...(store.secondFactors?.get("u-ada")?.backupCodes ?? [])];
    expect(hashes).toHaveLength(10);
    for (const code of confirmed.backupCodes) expect(hashes.join()).not.toContain(code.replaceAll("-", ""));
    expect(await secondFactorStatus(config, "u-ada")).toEqual({ active: true, pending: false, backupCodesLeft: 10 });
  });
});

describe("sign-in with a second factor", () => {
  it("rule: a first factor alone issues no session, only a pending cookie and the code page", async () => {
    const { config } = setup();
    await enrol(config, "ada");
    const { jar, response } = await password(config, "ada");
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("http://localhost:3000/auth/callback/totp");
    expect(jar.get(SESSION)).toBeUndefined();
    expect(jar.get(PENDING)).toBeTruthy();
    const page = await call(config, "/auth/callback/totp", { jar });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('name="code"');
    expect(await sessionOf(config, jar)).toBeNull();
  });

  it("rule: a crafted link's long callbackUrl cannot push the pending sign-in past its bound: the sign-in completes and lands on the origin", async () => {
    const { config } = setup();
    const enrolled = await enrol(config, "ada");
    const jar = new CookieJar();
    // The attacker's link: a same-origin callback URL of 3,000 characters, kept in the callback-URL cookie.
    const long = `http://localhost:3000/${"a".repeat(3000)}`;
    await call(config, `/auth/signin?callbackUrl=${encodeURIComponent(long)}`, { jar });
    const { response } = await password(config, "ada", jar);
    expect(response.headers.get("location")).toBe("http://localhost:3000/auth/callback/totp");
    const done = await submitCode(config, jar, codeAt(enrolled.secret, timeStep() + 1));
    expect(done.headers.get("location")).toBe("http://localhost:3000");
    expect((await sessionOf(config, jar))?.user?.email).toBe("ada@example.com");
  });

  it("rule: the right code starts the session, recording both factors (amr) for the callbacks", async () => {
    const { config, enrolled, seen } = await (async () => {
      const s = setup();
      return { ...s, enrolled: await enrol(s.config, "ada") };
    })();
    const { jar } = await password(config, "ada");
    const response = await submitCode(config, jar, codeAt(enrolled.secret, timeStep() + 1));
    expect(response.headers.get("location")).toBe("http://localhost:3000");
    expect(jar.get(PENDING)).toBeUndefined();
    const session = await sessionOf(config, jar);
    expect(session?.user?.email).toBe("ada@example.com");
    expect(session?.amr).toEqual(["pwd", "otp"]);
    expect(seen.jwt).toContainEqual(["pwd", "otp"]);
  });

  it("rule: a user without a second factor signs in as before, with one factor recorded", async () => {
    const { config } = setup();
    const { jar, response } = await password(config, "bob");
    expect(response.headers.get("location")).toBe("http://localhost:3000");
    expect((await sessionOf(config, jar))?.amr).toEqual(["pwd"]);
  });

  it("rule: a code is never accepted twice (replay with a new pending sign-in is refused)", async () => {
    const { config } = setup();
    const { secret } = await enrol(config, "ada");
    const code = codeAt(secret, timeStep() + 1);
    const first = await password(config, "ada");
    await submitCode(config, first.jar, code);
    expect((await sessionOf(config, first.jar))?.user).toBeTruthy();

    const attacker = await password(config, "ada");
    const replay = await submitCode(config, attacker.jar, code);
    expect(replay.headers.get("location")).toBe("http://localhost:3000/auth/callback/totp?error=CredentialsSignin");
    expect(attacker.jar.get(SESSION)).toBeUndefined();
  });

  it("rule: one step of drift either way, not two; a wrong code says nothing more than 'not accepted'", async () => {
    const { config } = setup();
    const { secret } = await enrol(config, "ada");
    const { jar } = await password(config, "ada");
    const answers: string[] = [];
    for (const code of [
      codeAt(secret, timeStep() + 2),
      codeAt(secret, timeStep() - 2),
      String((Number(codeAt(secret, timeStep())) + 7) % 1_000_000).padStart(6, "0"),
      "12345",
      "not-a-code",
    ]) {
      answers.push(String((await submitCode(config, jar, code)).headers.get("location")));
    }
    expect(new Set(answers)).toEqual(new Set(["http://localhost:3000/auth/callback/totp?error=CredentialsSignin"]));
    expect(jar.get(SESSION)).toBeUndefined();
  });

  it("rule: a pending cookie is single use (replayed after its sign-in, even with the next code, it is refused)", async () => {
    const { config } = setup();
    const { secret } = await enrol(config, "ada");
    const { jar } = await password(config, "ada");
    const stolen = jar.get(PENDING) as string;
    await submitCode(config, jar, codeAt(secret, timeStep() + 1));
    expect((await sessionOf(config, jar))?.user).toBeTruthy();

    // A step later, with a code that was never used, the spent cookie is still refused.
    vi.setSystemTime(Date.now() + TOTP_PERIOD * 1000);
    const replayJar = new CookieJar();
    replayJar.cookies.set(PENDING, stolen);
    const replay = await submitCode(config, replayJar, codeAt(secret, timeStep() + 1));
    expect(replay.headers.get("location")).toBe("http://localhost:3000/auth/callback/totp?error=CredentialsSignin");
    expect(replayJar.get(SESSION)).toBeUndefined();
  });

  it("rule: a code is checked against the user the pending cookie was sealed for (another user's code fails)", async () => {
    const { config } = setup();
    const ada = await enrol(config, "ada");
    await enrol(config, "bob");
    const { jar } = await password(config, "bob");
    const response = await submitCode(config, jar, codeAt(ada.secret, timeStep() + 1));
    expect(response.headers.get("location")).toBe("http://localhost:3000/auth/callback/totp?error=CredentialsSignin");
    expect(jar.get(SESSION)).toBeUndefined();
    // A pending cookie cannot be re-sealed by the client: an altered one means "sign in again".
    const forged = new CookieJar();
    forged.cookies.set(PENDING, `${(jar.get(PENDING) as string).slice(0, -4)}AAAA`);
    const refused = await submitCode(config, forged, codeAt(ada.secret, timeStep()));
    expect(refused.headers.get("location")).toBe("http://localhost:3000/auth/signin?error=SessionRequired");
  });

  it("rule: 50 concurrent submissions of one code give exactly one session", async () => {
    const { config } = setup({
      rateLimit: {
        secondFactorPerPending: { max: 100, windowSeconds: 900 },
        secondFactorPerUser: { max: 100, windowSeconds: 900 },
      },
    });
    const { secret } = await enrol(config, "ada");
    const { jar } = await password(config, "ada");
    const csrf = await csrfToken(config, jar);
    // The current step confirmed the enrolment; the next one is fresh.
    const code = codeAt(secret, timeStep() + 1);
    const cookie = jar.header();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => {
        const own = new CookieJar();
        for (const [k, v] of jar.cookies) own.cookies.set(k, v);
        return call(config, "/auth/callback/totp", { jar: own, form: { csrfToken: csrf, code } }).then(() => own);
      }),
    );
    expect(cookie).toBe(jar.header());
    expect(answers.filter((j) => j.get(SESSION)).length).toBe(1);
  });

  it("rule: guessing stops at the limit, per pending sign-in and per user; the right code then fails too", async () => {
    const { config } = setup();
    const { secret } = await enrol(config, "ada");
    const wrong = String((Number(codeAt(secret, timeStep())) + 500_000) % 1_000_000).padStart(6, "0");
    const { jar } = await password(config, "ada");
    const locations: string[] = [];
    for (let i = 0; i < 6; i++) locations.push(String((await submitCode(config, jar, wrong)).headers.get("location")));
    expect(locations.slice(0, 5).every((l) => l.endsWith("error=CredentialsSignin"))).toBe(true);
    expect(locations[5]).toBe("http://localhost:3000/auth/callback/totp?error=RateLimited");
    const right = await submitCode(config, jar, codeAt(secret, timeStep()));
    expect(right.headers.get("location")).toBe("http://localhost:3000/auth/callback/totp?error=RateLimited");
    // A fresh pending sign-in has its own budget, but the user's budget (10) still ends the guessing.
    const again = await password(config, "ada");
    const more: string[] = [];
    for (let i = 0; i < 6; i++) more.push(String((await submitCode(config, again.jar, wrong)).headers.get("location")));
    expect(more.filter((l) => l.endsWith("error=CredentialsSignin")).length).toBe(5);
    const third = await password(config, "ada");
    expect((await submitCode(config, third.jar, wrong)).headers.get("location")).toMatch(/error=RateLimited$/);
    expect(third.jar.get(SESSION)).toBeUndefined();
  });

  it("attack: the code guessing limit holds when the application makes a configuration per request (next-auth's lazy form)", async () => {
    const { config } = setup();
    const { secret } = await enrol(config, "ada");
    // Every request through an object of its own, as `NextAuth((req) => ({ ... }))` makes them.
    const fresh = () => ({ ...config });
    const wrong = String((Number(codeAt(secret, timeStep())) + 500_000) % 1_000_000).padStart(6, "0");
    const { jar } = await password(fresh(), "ada");
    const locations: string[] = [];
    for (let i = 0; i < 6; i++) locations.push(String((await submitCode(fresh(), jar, wrong)).headers.get("location")));
    expect(locations.slice(0, 5).every((l) => l.endsWith("error=CredentialsSignin"))).toBe(true);
    expect(locations[5]).toMatch(/error=RateLimited$/);
    expect((await submitCode(fresh(), jar, codeAt(secret, timeStep()))).headers.get("location")).toMatch(
      /error=RateLimited$/,
    );
    expect(jar.get(SESSION)).toBeUndefined();
  });

  it("rule: a backup code works once", async () => {
    const { config } = setup();
    const { backupCodes } = await enrol(config, "ada");
    const code = (backupCodes[3] as string).toLowerCase().replaceAll("-", " ");
    const first = await password(config, "ada");
    await submitCode(config, first.jar, code);
    expect((await sessionOf(config, first.jar))?.amr).toEqual(["pwd", "otp"]);
    const second = await password(config, "ada");
    const replay = await submitCode(config, second.jar, backupCodes[3] as string);
    expect(replay.headers.get("location")).toMatch(/error=CredentialsSignin$/);
    expect(second.jar.get(SESSION)).toBeUndefined();
    expect((await secondFactorStatus(config, "u-ada")).backupCodesLeft).toBe(9);
  });

  it("rule: disabling the factor requires a fresh code", async () => {
    const { config } = setup();
    const { secret } = await enrol(config, "ada");
    // The code that confirmed the enrolment is spent.
    expect(await disableTotp(config, "u-ada", codeAt(secret, timeStep()))).toEqual({ ok: false, reason: "invalid" });
    expect(await disableTotp(config, "u-ada", "000000x")).toEqual({ ok: false, reason: "invalid" });
    expect((await secondFactorStatus(config, "u-ada")).active).toBe(true);
    expect(await disableTotp(config, "u-ada", codeAt(secret, timeStep() + 1))).toEqual({ ok: true });
    expect((await secondFactorStatus(config, "u-ada")).active).toBe(false);
    const { jar } = await password(config, "ada");
    expect(jar.get(SESSION)).toBeTruthy();
  });

  it("rule: the code form is CSRF-checked, and without a pending sign-in it sends to the sign-in page", async () => {
    const { config } = setup();
    const { secret } = await enrol(config, "ada");
    const { jar } = await password(config, "ada");
    const noToken = await call(config, "/auth/callback/totp", { jar, form: { code: codeAt(secret, timeStep() + 1) } });
    expect(noToken.headers.get("location")).toMatch(/error=MissingCSRF$/);
    expect(jar.get(SESSION)).toBeUndefined();
    const fresh = new CookieJar();
    const csrf = await csrfToken(config, fresh);
    const none = await call(config, "/auth/callback/totp", { jar: fresh, form: { csrfToken: csrf, code: "123456" } });
    expect(none.headers.get("location")).toBe("http://localhost:3000/auth/signin?error=SessionRequired");
  });
});

// Adversarial review (feat-attack): the account page has no pending sign-in, so its attempts must
// be counted on the user alone. A fixed per-pending key ("account-page") was one budget of five
// for every user, never given back: one user's wrong codes, or five honest enrolments, stopped
// every other user from turning the factor on or off.
describe("rule: a pending sign-in begun before the user's sessions were revoked cannot complete", () => {
  const signedInAs = (jar: CookieJar) => ({ protocol: "http:", host: "localhost:3000", cookieHeader: jar.header() });
  const revocations = [
    {
      name: "revokeUserSessions of @latchkey/core/revocation (JWT sessions)",
      setup: () => setup({ session: { strategy: "jwt", revocation: {} } }),
      revoke: (config: AuthConfig) => revokeJwtUserSessions(config, "u-ada"),
    },
    {
      name: "revokeUserSessions of @latchkey/core/sessions (database sessions, after a password change)",
      setup: () => setup({ session: { strategy: "database" }, callbacks: {} }, { databaseSessions: true }),
      revoke: (config: AuthConfig) => revokeUserSessions(config, "u-ada", { reason: "password-changed" }),
    },
    {
      name: "revokeOtherSessions (database sessions: the owner signs out every other device)",
      setup: () => setup({ session: { strategy: "database" }, callbacks: {} }, { databaseSessions: true }),
      revoke: async (config: AuthConfig, owner: CookieJar) => {
        const csrfToken = decodeURIComponent(owner.get("authjs.csrf-token") ?? "").split("|")[0];
        expect(await revokeOtherSessions(signedInAs(owner), config, { csrfToken })).toBeTypeOf("number");
      },
    },
  ];

  /** Ada enrolled, and signed in (password and code) on the owner's device. */
  async function ownerSignedIn(revocation: (typeof revocations)[number], watch?: (adapter: Adapter) => Adapter) {
    const { config, store } = revocation.setup();
    if (watch) config.adapter = watch(config.adapter as Adapter);
    const { secret } = await enrol(config, "ada");
    const owner = (await password(config, "ada")).jar;
    await submitCode(config, owner, codeAt(secret, timeStep() + 1));
    expect((await sessionOf(config, owner))?.user?.email).toBe("ada@example.com");
    return { config, secret, owner, store };
  }

  /**
   * Runs `during` at the worst moment of a sign-in's code step: its code has won the
   * compare-and-set and its check for a revocation has read the record, but its session does not
   * exist yet. `during` runs to its end before that read is answered (with what it read before).
   */
  function atTheMomentTheCodeWins(during: () => Promise<void>) {
    let codeWon = false;
    let ran = false;
    const watch = (adapter: Adapter): Adapter => ({
      ...adapter,
      async useSecondFactorStep(userId, expected, next) {
        codeWon = (await adapter.useSecondFactorStep?.(userId, expected, next)) === true;
        return codeWon;
      },
      async getSecondFactor(userId) {
        const record = (await adapter.getSecondFactor?.(userId)) ?? null;
        if (codeWon && !ran) {
          ran = true;
          await during();
        }
        return record;
      },
    });
    const arm = () => {
      codeWon = false;
      ran = false;
    };
    return { watch, ran: () => ran, arm };
  }

  it.each(revocations)(
    "$name, at the very moment the attacker's code wins: his sign-in ends with it (no session, no cookie)",
    async (revocation) => {
      let config: AuthConfig | undefined;
      let owner: CookieJar | undefined;
      const moment = atTheMomentTheCodeWins(async () => {
        if (config && owner) await revocation.revoke(config, owner);
      });
      const signedIn = await ownerSignedIn(revocation, moment.watch);
      ({ config, owner } = signedIn);
      const sessionsBefore = signedIn.store.sessions.size;

      const { jar: attacker } = await password(config, "ada");
      vi.setSystemTime(Date.now() + TOTP_PERIOD * 1000);
      moment.arm();
      const refused = await submitCode(config, attacker, codeAt(signedIn.secret, timeStep() + 1));
      expect(moment.ran()).toBe(true);
      expect(refused.headers.get("location")).toBe("http://localhost:3000/auth/signin?error=SessionRequired");
      expect(attacker.get(SESSION)).toBeUndefined();
      expect(await sessionOf(config, attacker)).toBeNull();
      // Under database sessions nothing of his is stored either (the owner's stays after revokeOtherSessions).
      const owners = revocation.name.startsWith("revokeOtherSessions") ? sessionsBefore : 0;
      expect(signedIn.store.sessions.size).toBe(owners);
    },
  );

  it.each(revocations)("$name, honest: the same moment with no revocation starts the session", async (revocation) => {
    const moment = atTheMomentTheCodeWins(async () => {});
    const { config, secret } = await ownerSignedIn(revocation, moment.watch);
    const { jar } = await password(config, "ada");
    vi.setSystemTime(Date.now() + TOTP_PERIOD * 1000);
    moment.arm();
    const response = await submitCode(config, jar, codeAt(secret, timeStep() + 1));
    expect(moment.ran()).toBe(true);
    expect(response.headers.get("location")).toBe("http://localhost:3000");
    expect((await sessionOf(config, jar))?.user?.email).toBe("ada@example.com");
  });

  it.each(revocations)(
    "$name: the attacker at the code step is refused with the right code; the owner signs in again",
    async (revocation) => {
      const { config, secret, owner } = await ownerSignedIn(revocation);

      // The attacker has the password and waits at the code step; the owner then revokes.
      const { jar: attacker } = await password(config, "ada");
      expect(attacker.get(PENDING)).toBeTruthy();
      await revocation.revoke(config, owner);

      // A step later, with a code the attacker obtained (phished, shoulder-surfed): no session.
      vi.setSystemTime(Date.now() + TOTP_PERIOD * 1000);
      const refused = await submitCode(config, attacker, codeAt(secret, timeStep() + 1));
      expect(refused.headers.get("location")).toBe("http://localhost:3000/auth/callback/totp?error=CredentialsSignin");
      expect(attacker.get(SESSION)).toBeUndefined();
      expect(await sessionOf(config, attacker)).toBeNull();

      // A sign-in begun after the revocation completes (from the next code on).
      vi.setSystemTime(Date.now() + TOTP_PERIOD * 1000);
      const { jar: again } = await password(config, "ada");
      await submitCode(config, again, codeAt(secret, timeStep() + 1));
      expect((await sessionOf(config, again))?.user?.email).toBe("ada@example.com");
    },
  );

  it.each(revocations)(
    "$name, 20 times in a row: the current code and the next step's are still accepted at the next sign-ins",
    async (revocation) => {
      const { config, secret, owner } = await ownerSignedIn(revocation);

      // Whoever holds one of the user's sessions (a stolen cookie) revokes over and over.
      vi.setSystemTime(Date.now() + 2 * TOTP_PERIOD * 1000);
      for (let i = 0; i < 20; i++) await revocation.revoke(config, owner);
      // A second on (same step): a JWT issued in the second of a revocation counts as revoked.
      vi.setSystemTime(Date.now() + 1000);

      for (const step of [timeStep(), timeStep() + 1]) {
        const { jar } = await password(config, "ada");
        const response = await submitCode(config, jar, codeAt(secret, step));
        expect(response.headers.get("location")).toBe("http://localhost:3000");
        expect((await sessionOf(config, jar))?.user?.email).toBe("ada@example.com");
      }
    },
  );

  it("an adapter without endSecondFactorSignIns (a custom one): the attacker at the code step is still refused", async () => {
    const { config } = setup({ session: { strategy: "database" }, callbacks: {} }, { databaseSessions: true });
    const { endSecondFactorSignIns: _absent, ...custom } = config.adapter as NonNullable<AuthConfig["adapter"]>;
    config.adapter = custom;
    const { secret } = await enrol(config, "ada");
    const { jar: attacker } = await password(config, "ada");
    await revokeUserSessions(config, "u-ada");
    vi.setSystemTime(Date.now() + TOTP_PERIOD * 1000);
    const refused = await submitCode(config, attacker, codeAt(secret, timeStep() + 1));
    expect(refused.headers.get("location")).toBe("http://localhost:3000/auth/callback/totp?error=CredentialsSignin");
    expect(await sessionOf(config, attacker)).toBeNull();
  });
});

describe("rule: the account page's code attempts are counted per user, never on a budget all users share", () => {
  /** A code that is none of the three accepted steps' codes. */
  function wrongCode(secret: string): string {
    const accepted = new Set([-1, 0, 1].map((d) => codeAt(secret, timeStep() + d)));
    for (let n = 0; ; n++) if (!accepted.has(String(n).padStart(6, "0"))) return String(n).padStart(6, "0");
  }

  it("one user's wrong codes on her own account page do not stop another user enrolling or disabling", async () => {
    const { config } = setup();
    // mallory starts an enrolment of her own and types wrong codes until she is limited.
    const mallory = await startTotpEnrolment(config, { id: "u-mallory", label: "mallory@example.com" });
    const answers = [];
    for (let i = 0; i < 12; i++)
      answers.push(await confirmTotpEnrolment(config, "u-mallory", wrongCode(mallory.secret)));
    expect(answers.at(-1)).toEqual({ ok: false, reason: "rate-limited" });

    // ada, who never typed a wrong code, enrols with the right one...
    const ada = await startTotpEnrolment(config, { id: "u-ada", label: "ada@example.com" });
    expect((await confirmTotpEnrolment(config, "u-ada", codeAt(ada.secret, timeStep()))).ok).toBe(true);
    expect((await secondFactorStatus(config, "u-ada")).active).toBe(true);
    // ...and her next code turns it off.
    expect(await disableTotp(config, "u-ada", codeAt(ada.secret, timeStep() + 1))).toEqual({ ok: true });
    // mallory herself stays limited: the per-user budget still holds.
    const late = await confirmTotpEnrolment(config, "u-mallory", codeAt(mallory.secret, timeStep()));
    expect(late).toEqual({ ok: false, reason: "rate-limited" });
  });

  it("twenty users enrolling honestly, one after the other, are all accepted", async () => {
    const { config } = setup();
    for (let i = 0; i < 20; i++) {
      const id = `u-${i}`;
      const { secret } = await startTotpEnrolment(config, { id, label: `${id}@example.com` });
      expect((await confirmTotpEnrolment(config, id, codeAt(secret, timeStep()))).ok, `user ${i} enrols`).toBe(true);
      const regenerated = await regenerateBackupCodes(config, id, codeAt(secret, timeStep() + 1));
      expect(regenerated.ok, `user ${i} regenerates backup codes`).toBe(true);
    }
  });
});

// Adversarial review (feat-attack): confirmTotpEnrolment read the waiting record, checked the code
// and wrote the active factor with fresh backup codes, with nothing atomic in between. Concurrent
// confirmations with one code all succeeded: the code was accepted many times, and each answer
// showed its own ten backup codes while only the last written set was stored.
describe("rule: an enrolment is confirmed once: of concurrent confirmations with one code exactly one succeeds", () => {
  it("30 confirmations at once: one ok, and the backup codes it shows are the ones that work", async () => {
    const { config } = setup();
    const { secret } = await startTotpEnrolment(config, { id: "u-ada", label: "ada@example.com" });
    const code = codeAt(secret, timeStep());
    const answers = await Promise.all(Array.from({ length: 30 }, () => confirmTotpEnrolment(config, "u-ada", code)));
    const accepted = answers.filter((a) => a.ok);
    expect(accepted.length).toBe(1);
    expect(await secondFactorStatus(config, "u-ada")).toEqual({ active: true, pending: false, backupCodesLeft: 10 });
    // Every code shown works once at sign-in.
    const shown = (accepted[0] as { backupCodes: string[] }).backupCodes;
    for (const backup of shown.slice(0, 3)) {
      const { jar } = await password(config, "ada");
      await submitCode(config, jar, backup);
      expect((await sessionOf(config, jar))?.amr, backup).toEqual(["pwd", "otp"]);
    }
    expect((await secondFactorStatus(config, "u-ada")).backupCodesLeft).toBe(7);
  });

  it("a confirmation of an enrolment restarted meanwhile is refused: the new secret needs its own code", async () => {
    const { config } = setup();
    const first = await startTotpEnrolment(config, { id: "u-ada", label: "ada@example.com" });
    const second = await startTotpEnrolment(config, { id: "u-ada", label: "ada@example.com" });
    expect(await confirmTotpEnrolment(config, "u-ada", codeAt(first.secret, timeStep()))).toEqual({
      ok: false,
      reason: "invalid",
    });
    expect((await confirmTotpEnrolment(config, "u-ada", codeAt(second.secret, timeStep()))).ok).toBe(true);
  });
});

// Adversarial review (feat-attack): the TOTP key is sealed under the configuration's secret.
// docs/deployment.md §3 rotates a secret in two steps ([NEW, OLD], then NEW alone after
// session.maxAge); at the second step every key still sealed under OLD stopped opening, and its
// user could no longer sign in with the authenticator app nor turn it off with a code.
describe("rule: following the documented secret rotation never locks a second factor out", () => {
  it("a code accepted under [NEW, OLD] seals the key again under NEW, so NEW alone still opens it", async () => {
    const OLD = SECRET;
    const NEW = testSecret("after-rotation");
    const { config } = setup();
    const { secret } = await enrol(config, "ada");
    config.secret = [NEW, OLD];
    vi.setSystemTime(Date.now() + TOTP_PERIOD * 1000);
    const first = await password(config, "ada");
    await submitCode(config, first.jar, codeAt(secret, timeStep()));
    expect((await sessionOf(config, first.jar))?.amr).toEqual(["pwd", "otp"]);

    config.secret = NEW;
    vi.setSystemTime(Date.now() + TOTP_PERIOD * 1000);
    const second = await password(config, "ada");
    await submitCode(config, second.jar, codeAt(secret, timeStep()));
    expect((await sessionOf(config, second.jar))?.amr).toEqual(["pwd", "otp"]);
    // ...and the re-sealed key still refuses a spent code and keeps the backup codes.
    expect(await disableTotp(config, "u-ada", codeAt(secret, timeStep()))).toEqual({ ok: false, reason: "invalid" });
    expect((await secondFactorStatus(config, "u-ada")).backupCodesLeft).toBe(10);
  });

  it("a code spent on the account page under [NEW, OLD] seals the key again too", async () => {
    const OLD = SECRET;
    const NEW = testSecret("after-rotation");
    const { config } = setup();
    const { secret } = await enrol(config, "ada");
    config.secret = [NEW, OLD];
    const regenerated = await regenerateBackupCodes(config, "u-ada", codeAt(secret, timeStep() + 1));
    expect(regenerated.ok).toBe(true);
    config.secret = NEW;
    vi.setSystemTime(Date.now() + 2 * TOTP_PERIOD * 1000);
    expect(await disableTotp(config, "u-ada", codeAt(secret, timeStep()))).toEqual({ ok: true });
  });
});
