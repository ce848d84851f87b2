/**
 * Cookie tossing against a chunked session cookie (a session too large for one cookie: `name.0`,
 * `name.1`, ...). A sibling sub-domain cannot overwrite the browser's chunks, but it can add a
 * chunk of the next number or send a chunk name twice (its own `Domain` or a longer `Path`). Such
 * a request reads as no session, as a name sent twice does; it must never clear the browser's own
 * chunks (a logout the sibling could repeat on every sign-in), and a sign-out must not answer
 * "done" while the session lives on.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { type CookieJar, call, csrfToken, makeConfig, signIn, testSecret } from "../helpers.js";

const NAME = "authjs.session-token";
const quiet = { error() {}, warn() {}, debug() {} };

/** An application whose sessions carry a blob too large for one cookie. */
function chunkedApp() {
  const blob = randomBytes(4000).toString("base64url");
  return makeConfig({
    secret: testSecret("chunk-planting"),
    rateLimit: false,
    logger: quiet,
    session: { strategy: "jwt", revocation: true },
    callbacks: { jwt: ({ token }) => ({ ...token, blob }) },
  });
}

/** The browser's chunks, in order. */
function chunksOf(jar: CookieJar): string[] {
  const chunks: string[] = [];
  for (let i = 0; jar.get(`${NAME}.${i}`) !== undefined; i++) chunks.push(jar.get(`${NAME}.${i}`) as string);
  return chunks;
}

/** A user signed in to a fresh {@link chunkedApp}: her jar, her chunks, and them as a Cookie header. */
async function signedInWithChunks() {
  const config = chunkedApp();
  const { jar } = await signIn(config);
  const chunks = chunksOf(jar);
  return { config, jar, chunks, own: chunks.map((c, i) => `${NAME}.${i}=${c}`).join("; ") };
}

/** GET /auth/session with exactly this Cookie header. */
async function sessionWith(config: ReturnType<typeof chunkedApp>, cookie: string) {
  const response = await call(config, "/auth/session", { headers: { cookie } });
  const body = (await response.json()) as { user?: { email?: string } } | null;
  return { status: response.status, email: body?.user?.email ?? null, cleared: response.headers.getSetCookie() };
}

describe("rule: chunks a sibling adds to a chunked session cookie never clear the browser's own", () => {
  it("honest: a session too large for one cookie is written in chunks and read back", async () => {
    const { config, chunks, own } = await signedInWithChunks();
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    expect(chunks[0]).toHaveLength(4096 - 160);
    expect((await sessionWith(config, own)).email).toBe("ada@example.com");
  });

  it("attack: a chunk of the next number planted beside the browser's chunks, 40 requests at once: no session read, none of her chunks cleared, her session reads again once it is gone", async () => {
    const { config, chunks, own } = await signedInWithChunks();
    const planted = `${own}; ${NAME}.${chunks.length}=${"A".repeat(40)}`;
    const answers = await Promise.all(Array.from({ length: 40 }, () => sessionWith(config, planted)));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.email).toBeNull();
      expect(answer.cleared.filter((c) => c.startsWith(`${NAME}`))).toEqual([]);
    }
    expect((await sessionWith(config, own)).email).toBe("ada@example.com");
  });

  it("attack: a chunk name sent twice (a sibling's copy of the last chunk, or of a middle one) clears none of her chunks", async () => {
    const { config, chunks, own } = await signedInWithChunks();
    for (let i = 0; i < chunks.length; i++) {
      const answer = await sessionWith(config, `${NAME}.${i}=${"B".repeat(30)}; ${own}`);
      expect(answer.email, `chunk ${i} twice`).toBeNull();
      expect(
        answer.cleared.filter((c) => c.startsWith(`${NAME}`)),
        `chunk ${i} twice`,
      ).toEqual([]);
    }
    expect((await sessionWith(config, own)).email).toBe("ada@example.com");
  });

  it("attack: a sign-out with a planted extra chunk is not answered as done while her session lives on", async () => {
    const { config, jar, chunks, own } = await signedInWithChunks();
    const csrf = await csrfToken(config, jar);
    const cookie = `${jar.header()}; ${NAME}.${chunks.length}=${"A".repeat(40)}`;
    const answer = await call(config, "/auth/signout", {
      form: { csrfToken: csrf },
      headers: { cookie, accept: "application/json" },
    });
    // The chunks cannot be told apart from the sibling's: the sign-out says it was not done.
    expect(answer.status).toBe(503);
    expect(((await answer.json()) as { error: string }).error).toBe("SignOutError");
    expect(answer.headers.getSetCookie().filter((c) => c.startsWith(`${NAME}`))).toEqual([]);
    // Once the planted chunk is gone, her sign-out ends the session.
    const again = await call(config, "/auth/signout", { form: { csrfToken: csrf }, jar });
    expect(again.status).toBe(302);
    expect((await sessionWith(config, own)).email).toBeNull();
  });
});
