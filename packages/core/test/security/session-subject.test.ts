/**
 * Whose session a JWT session is (`sub`) is decided at sign-in and by nothing after it. A `jwt`
 * callback that merges the client's update into the token (`{ ...token, ...session }`, a common
 * reading of Auth.js's "update the session" recipe) would otherwise let a signed-in user post
 * `{ data: { sub: "<another user's id>" } }` to `POST /auth/session` and be that user for every
 * reader Latchkey has: the linked-accounts API, account linking, revocation by user.
 */
import { describe, expect, it } from "vitest";
import { decode } from "../../src/jwt.js";
import { createMemoryStore, MemoryAdapter } from "../../src/memory-adapter.js";
import Credentials from "../../src/providers/credentials.js";
import { revokeUserSessions } from "../../src/revocation.js";
import { listAccounts } from "../../src/sessions.js";
import type { AuthConfig } from "../../src/types.js";
import { CookieJar, call, csrfToken, recordingLogger, SECRET } from "../helpers.js";

const users: Record<string, { id: string; password: string }> = {
  ada: { id: "u-ada", password: "lovelace" },
  mallory: { id: "u-mallory", password: "mallet" },
};

async function setup() {
  const adapter = MemoryAdapter(createMemoryStore());
  for (const [name, user] of Object.entries(users)) {
    await adapter.createUser?.({ id: user.id, email: `${name}@example.com`, emailVerified: null });
    await adapter.linkAccount?.({
      userId: user.id,
      provider: "github",
      providerAccountId: user.id,
      type: "oauth",
    });
  }
  const log = recordingLogger();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy: "jwt", revocation: true },
    logger: log.logger,
    rateLimit: false,
    providers: [
      Credentials({
        credentials: { username: {}, password: { type: "password" } },
        authorize: async (c) => {
          const user = users[String(c.username)];
          return user && user.password === c.password ? { id: user.id, name: String(c.username) } : null;
        },
      }),
    ],
    callbacks: {
      // The merging update: whatever the client sends lands in the token.
      jwt: ({ token, trigger, session }) =>
        trigger === "update" && session && typeof session === "object" ? { ...token, ...session } : token,
    },
  };
  return { config, log };
}

async function signIn(config: AuthConfig, name: string): Promise<CookieJar> {
  const jar = new CookieJar();
  const csrf = await csrfToken(config, jar);
  const user = users[name] as { password: string };
  await call(config, "/auth/callback/credentials", {
    jar,
    form: { csrfToken: csrf, username: name, password: user.password },
  });
  expect(jar.cookies.has("authjs.session-token")).toBe(true);
  return jar;
}

const request = (jar: CookieJar) => ({ protocol: "http", host: "localhost:3000", cookieHeader: jar.header() });

async function subjectOf(jar: CookieJar): Promise<unknown> {
  const claims = await decode({
    token: jar.cookies.get("authjs.session-token") as string,
    secret: SECRET,
    salt: "authjs.session-token",
  });
  return claims?.sub;
}

describe("sub belongs to the sign-in: no session update or jwt callback makes a session another user's", () => {
  it("rule: POST /auth/session with data.sub keeps the signed-in user (cookie, accounts API, revocation)", async () => {
    const { config, log } = await setup();
    const jar = await signIn(config, "mallory");
    expect(await subjectOf(jar)).toBe("u-mallory");

    const csrf = await csrfToken(config, jar);
    const response = await call(config, "/auth/session", {
      jar,
      json: { csrfToken: csrf, data: { sub: "u-ada", name: "still mallory" } },
    });
    expect(response.status).toBe(200);
    // The rest of the update goes through: only the identity is kept.
    expect(((await response.json()) as { user: { name: string } }).user.name).toBe("still mallory");
    expect(await subjectOf(jar), "the re-issued cookie is still mallory's").toBe("u-mallory");

    const accounts = await listAccounts(request(jar), config);
    expect(accounts?.map((a) => a.providerAccountId)).toEqual(["u-mallory"]);
    expect(log.warnings).toContain("jwt-callback-changed-subject");

    // Revoking mallory's sessions signs this one out, whatever it claimed to be.
    await revokeUserSessions(config, "u-mallory");
    const after = await call(config, "/auth/session", { jar });
    expect(await after.json()).toBeNull();
  });

  it("rule: a jwt callback that drops sub on a read does not make the stored session anonymous", async () => {
    const { config } = await setup();
    // At sign-in the token keeps its sub; on every later read the callback returns a new object without it.
    config.callbacks = { jwt: ({ token, trigger }) => (trigger ? token : { name: token.name, email: token.email }) };
    const jar = await signIn(config, "ada");
    const accounts = await listAccounts(request(jar), config);
    expect(accounts?.map((a) => a.providerAccountId)).toEqual(["u-ada"]);
  });
});
