/**
 * Session cookie tampering (RFC 7516/7518, RFC 8725 §2.1 and §3.1, OWASP ASVS 3.2 / 3.5.3): a
 * session cookie that was altered, truncated, re-headed or inflated gives no session, no 5xx and
 * a response (never a hang). Each tampered token is checked through `GET /auth/session`.
 */
import { deflateRawSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { CookieJar, call, csrfToken, demoCredentials, makeConfig, signIn, testSecret } from "../helpers.js";
import { adaClaims, sealRaw, sessionKey } from "./support.js";

const SESSION = "authjs.session-token";

const NAME = "authjs.session-token";
// One application for the whole file: the tokens below are sealed under its secret.
const SECRET = testSecret("tampering");
const config = makeConfig({ secret: SECRET, rateLimit: false, logger: { error() {}, warn() {}, debug() {} } });
const DIR_HEADER = { alg: "dir", enc: "A256CBC-HS512" };

let genuine: string;
beforeAll(async () => {
  const { jar } = await signIn(config);
  genuine = jar.get(NAME) as string;
  expect(genuine.split(".")).toHaveLength(5);
});

/** GET /auth/session with exactly these cookies; asserts no session and no 5xx. */
async function expectNoSession(cookies: Record<string, string>): Promise<Response> {
  const jar = new CookieJar();
  for (const [name, value] of Object.entries(cookies)) jar.cookies.set(name, value);
  const response = await call(config, "/auth/session", { jar });
  expect(response.status).toBe(200);
  expect(await response.json()).toBeNull();
  return response;
}

function b64(value: unknown): string {
  return Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");
}

describe("session cookie tampering: no session, no 5xx", () => {
  it("the genuine cookie does give a session (the probe works)", async () => {
    const jar = new CookieJar();
    jar.cookies.set(NAME, genuine);
    const session = await (await call(config, "/auth/session", { jar })).json();
    expect(session?.user?.email).toBe("ada@example.com");
  });

  it("rejects every single-character flip of the token, in every part", async () => {
    const alphabet = "AQgw_-";
    let tried = 0;
    for (let i = 0; i < genuine.length; i += 3) {
      const char = genuine[i] as string;
      if (char === ".") continue;
      const replacement = alphabet.split("").find((c) => c !== char) as string;
      const tampered = genuine.slice(0, i) + replacement + genuine.slice(i + 1);
      // A flip in the last character of a segment can land in base64url padding bits and decode to
      // the same bytes: that is the same token, not a forgery, so it is skipped.
      const same = tampered
        .split(".")
        .every((part, n) =>
          Buffer.from(part, "base64url").equals(Buffer.from(genuine.split(".")[n] as string, "base64url")),
        );
      if (same) continue;
      await expectNoSession({ [NAME]: tampered });
      tried++;
    }
    expect(tried).toBeGreaterThan(50);
  });

  it("rejects every truncation of the token", async () => {
    for (let length = 0; length < genuine.length; length += 7)
      await expectNoSession({ [NAME]: genuine.slice(0, length) });
    await expectNoSession({ [NAME]: genuine.slice(0, -1) });
  });

  it("rejects alg none, as a JWS and as a JWE shape", async () => {
    const claims = adaClaims();
    await expectNoSession({ [NAME]: `${b64({ alg: "none" })}.${b64(claims)}.` });
    await expectNoSession({
      [NAME]: `${b64({ alg: "none", enc: "A256CBC-HS512" })}..${b64("x".repeat(16))}.${b64(claims)}.`,
    });
    const parts = genuine.split(".");
    await expectNoSession({ [NAME]: [b64({ alg: "none", enc: "A256CBC-HS512" }), ...parts.slice(1)].join(".") });
  });

  it("rejects PBES2 with a huge p2c count without deriving anything (answers, no 5xx)", async () => {
    const header = {
      alg: "PBES2-HS512+A256KW",
      enc: "A256CBC-HS512",
      p2c: 2_000_000_000,
      p2s: b64("saltsaltsaltsalt"),
    };
    const token = `${b64(header)}.${b64(Buffer.alloc(72))}.${b64(Buffer.alloc(16))}.${b64(Buffer.alloc(32))}.${b64(Buffer.alloc(32))}`;
    await expectNoSession({ [NAME]: token });
    // the same with an empty encrypted key, the shape of a dir token
    await expectNoSession({
      [NAME]: `${b64(header)}..${b64(Buffer.alloc(16))}.${b64(Buffer.alloc(32))}.${b64(Buffer.alloc(32))}`,
    });
  });

  it("rejects an authentic token whose header names another enc (A128CBC-HS256 under the right derived key)", async () => {
    const key = sessionKey(SECRET, NAME, 32);
    await expectNoSession({
      [NAME]: sealRaw({ alg: "dir", enc: "A128CBC-HS256" }, Buffer.from(JSON.stringify(adaClaims())), key),
    });
  });

  it("rejects an authentic token with zip: DEF (decompression bombs never reach inflate)", async () => {
    const key = sessionKey(SECRET, NAME);
    const bomb = deflateRawSync(Buffer.from(JSON.stringify({ ...adaClaims(), pad: "A".repeat(1_000_000) })));
    await expectNoSession({ [NAME]: sealRaw({ ...DIR_HEADER, zip: "DEF" }, bomb, key) });
  });

  it("rejects authentic tokens with crit, jku, jwk or x5u headers", async () => {
    const key = sessionKey(SECRET, NAME);
    const payload = Buffer.from(JSON.stringify(adaClaims()));
    for (const extra of [
      { crit: ["exp"], exp: 1 },
      { jku: "http://evil.example/jwks" },
      { jwk: { kty: "oct", k: "AA" } },
      { x5u: "http://evil.example/cert" },
    ]) {
      await expectNoSession({ [NAME]: sealRaw({ ...DIR_HEADER, ...extra }, payload, key) });
    }
    // and the control: the same construction with the plain header is accepted
    const jar = new CookieJar();
    jar.cookies.set(NAME, sealRaw(DIR_HEADER, payload, key));
    expect((await (await call(config, "/auth/session", { jar })).json())?.user?.email).toBe("ada@example.com");
  });

  it("rejects authentic tokens whose claims are expired or malformed", async () => {
    const key = sessionKey(SECRET, NAME);
    const now = Math.floor(Date.now() / 1000);
    for (const claims of [
      adaClaims({ exp: now - 3600 }),
      adaClaims({ exp: "never" }),
      adaClaims({ nbf: now + 3600 }),
      adaClaims({ exp: null }),
    ]) {
      await expectNoSession({ [NAME]: sealRaw(DIR_HEADER, Buffer.from(JSON.stringify(claims)), key) });
    }
    for (const body of ["[1,2]", "null", '"text"', "{not json", ""]) {
      await expectNoSession({ [NAME]: sealRaw(DIR_HEADER, Buffer.from(body), key) });
    }
  });

  it("rejects a token sealed for another cookie name (the salt) or under another secret", async () => {
    const payload = Buffer.from(JSON.stringify(adaClaims()));
    await expectNoSession({
      [NAME]: sealRaw(DIR_HEADER, payload, sessionKey(SECRET, "__Secure-authjs.session-token")),
    });
    await expectNoSession({ [NAME]: sealRaw(DIR_HEADER, payload, sessionKey(SECRET, "authjs.state")) });
    await expectNoSession({ [NAME]: sealRaw(DIR_HEADER, payload, sessionKey("x".repeat(40), NAME)) });
  });

  it("rejects garbage chunks: junk, gaps, reordered and extra chunks, chunks beside a whole cookie", async () => {
    const half = Math.floor(genuine.length / 2);
    const [a, b] = [genuine.slice(0, half), genuine.slice(half)];
    await expectNoSession({ [`${NAME}.0`]: "garbage", [`${NAME}.1`]: "more" });
    await expectNoSession({ [`${NAME}.0`]: b, [`${NAME}.1`]: a });
    await expectNoSession({ [`${NAME}.0`]: a, [`${NAME}.1`]: b, [`${NAME}.2`]: "junk" });
    await expectNoSession({ [`${NAME}.1`]: a, [`${NAME}.2`]: b });
    await expectNoSession({ [`${NAME}.0`]: a });
    const many: Record<string, string> = {};
    for (let i = 0; i < 200; i++) many[`${NAME}.${i}`] = "A".repeat(50);
    await expectNoSession(many);
    // control: the genuine token, whole, is read (a token this small is never written in chunks;
    // chunks are read only as written, full ones then the rest: chunk-planting.test.ts)
    const jar = new CookieJar();
    jar.cookies.set(NAME, a + b);
    expect((await (await call(config, "/auth/session", { jar })).json())?.user?.email).toBe("ada@example.com");
  });

  it("answers 20 KB cookies (one value, many cookies, many chunks) with no session and no 5xx", async () => {
    const big = "A".repeat(20 * 1024);
    await expectNoSession({ [NAME]: big });
    await expectNoSession({ [NAME]: `${big}.${big}.${big}.${big}.${big}` });
    const chunks: Record<string, string> = {};
    for (let i = 0; i < 6; i++) chunks[`${NAME}.${i}`] = "B".repeat(3500);
    await expectNoSession(chunks);
    const crowd: Record<string, string> = {};
    for (let i = 0; i < 2000; i++) crowd[`c${i}`] = "xxxxxx";
    await expectNoSession(crowd);
    await expectNoSession({ [NAME]: "%".repeat(20 * 1024) });
    await expectNoSession({ [NAME]: `"${"\\".repeat(20 * 1024)}"` });
  });

  it("a rejected cookie is deleted, so a browser stops sending it", async () => {
    const response = await expectNoSession({ [NAME]: `${genuine.slice(0, -4)}AAAA` });
    expect(response.headers.getSetCookie().some((c) => c.startsWith(`${NAME}=`) && /max-age=0/i.test(c))).toBe(true);
  });

  it("the session update (POST) with a tampered cookie makes no session", async () => {
    const { jar } = await signIn(config);
    jar.cookies.set(NAME, `${genuine.slice(0, 30)}x${genuine.slice(31)}`);
    const csrf = (await (await call(config, "/auth/csrf", { jar })).json()) as { csrfToken: string };
    const response = await call(config, "/auth/session", { jar, json: { csrfToken: csrf.csrfToken, data: {} } });
    expect(response.status).toBeLessThan(500);
    expect(await response.json()).toBeNull();
    expect(jar.get(NAME)).toBeUndefined();
  });
});

// A sibling sub-domain cannot overwrite a session cookie kept in chunks (`<name>.0`, `<name>.1`),
// but it can add the unchunked name beside them: that name was read first, so the browser read as
// the planter's user (and a connect there joined his account) while it held a session of its own.
describe("rule: a session cookie held both whole and in chunks is ambiguous", () => {
  it("attack: an unchunked session cookie planted beside the victim's chunks reads as no one", async () => {
    const config = makeConfig({
      providers: [
        demoCredentials({
          authorize: async (c) =>
            (c.username === "ada" || c.username === "eve") && c.password === "lovelace"
              ? { id: `u-${c.username}`, name: String(c.username), email: `${c.username}@example.com` }
              : null,
        }),
      ],
      session: { revocation: true },
      // Her session is too large for one cookie (written in chunks); the planter's is not.
      callbacks: { jwt: ({ token }) => (token.sub === "u-ada" ? { ...token, blob: "b".repeat(4000) } : token) },
    });
    const victimJar = (await signIn(config)).jar;
    const planted = (await signIn(config, new CookieJar(), { username: "eve" })).jar.get(SESSION) as string;
    expect(victimJar.get(`${SESSION}.1`) && planted).toBeTruthy();
    const chunks = `${SESSION}.0=${victimJar.get(`${SESSION}.0`)}; ${SESSION}.1=${victimJar.get(`${SESSION}.1`)}`;
    // her chunks alone are her session
    const own = await call(config, "/auth/session", { headers: { cookie: chunks } });
    expect(((await own.json()) as { user?: { email?: string } }).user?.email).toBe("ada@example.com");
    const tossed = await call(config, "/auth/session", { headers: { cookie: `${SESSION}=${planted}; ${chunks}` } });
    expect(await tossed.json()).toBeNull();
    // and a sign-out there ends her session (revocation on), not only the planted one
    const jar = new CookieJar();
    const csrf = await csrfToken(config, jar);
    const out = await call(config, "/auth/signout", {
      form: { csrfToken: csrf },
      headers: { cookie: `${jar.header()}; ${SESSION}=${planted}; ${chunks}` },
    });
    expect(out.status).toBe(302);
    const cleared = out.headers.getSetCookie().map((c) => c.split("=")[0]);
    expect(cleared).toEqual(expect.arrayContaining([SESSION, `${SESSION}.0`, `${SESSION}.1`]));
    const after = await call(config, "/auth/session", { headers: { cookie: chunks } });
    expect(await after.json()).toBeNull();
  });
});
