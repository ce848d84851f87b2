/**
 * Types that help (issue 25, item 4): `requireAuth` in an Express route chain leaves Express's
 * request types alone (`req.body`, `req.params`), and the session's `expires` is one type, a
 * string, in the `session` callback under either strategy and in what `getSession` returns.
 * The type assertions are checked by `npm run typecheck`; the requests check the same at run time.
 */
import type { AuthConfig } from "@latchkey/core";
import { MemoryAdapter } from "@latchkey/core/memory-adapter";
import Credentials from "@latchkey/core/providers/credentials";
import express from "express";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { ExpressAuth, getSession, requireAuth } from "../src/index.js";
import { Jar, listen } from "./helpers.js";

const seen: { expires: unknown[] } = { expires: [] };

const config = {
  secret: "types-test-secret-0123456789abcdefghijkl",
  logger: { error() {}, warn() {}, debug() {} },
  providers: [Credentials({ credentials: { username: {} }, authorize: () => ({ id: "u1", name: "Ada" }) })],
  callbacks: {
    session({ session }) {
      expectTypeOf(session.expires).toEqualTypeOf<string>();
      seen.expires.push(session.expires);
      return { ...session, expires: session.expires };
    },
  },
} satisfies AuthConfig;

/** The same callback under database sessions (credentials opted in). */
const databaseConfig = {
  ...config,
  adapter: MemoryAdapter(),
  session: { strategy: "database" },
  providers: [
    Credentials({
      credentials: { username: {} },
      databaseSessions: true,
      authorize: () => ({ id: "u1", name: "Ada", email: "ada@example.com" }),
    }),
  ],
} satisfies AuthConfig;

let server: { url: string; close: () => Promise<void> };
beforeAll(async () => {
  const app = express();
  app.use(express.json());
  app.use("/auth", ExpressAuth(config));
  app.use("/db/auth", ExpressAuth(databaseConfig));
  app.post("/orders/:id", requireAuth(config), (req, res) => {
    // Express's own types: the route's params, and `any` for a body no handler typed.
    expectTypeOf(req.params.id).toEqualTypeOf<string>();
    expectTypeOf(req.body).toBeAny();
    res.json({ id: req.params.id, body: req.body, user: res.locals.session.user?.name });
  });
  app.get("/expires/jwt", async (req, res) => {
    const session = await getSession(req, config);
    expectTypeOf(session?.expires).toEqualTypeOf<string | undefined>();
    res.json({ expires: typeof session?.expires });
  });
  app.get("/expires/database", async (req, res) => {
    const session = await getSession(req, databaseConfig);
    expectTypeOf(session?.expires).toEqualTypeOf<string | undefined>();
    res.json({ expires: typeof session?.expires });
  });
  server = await listen(app);
});
afterAll(() => server?.close());

async function signedIn(base: string): Promise<Jar> {
  const jar = new Jar();
  const { csrfToken } = (await (await jar.fetch(`${server.url}${base}/csrf`)).json()) as { csrfToken: string };
  const response = await jar.fetch(`${server.url}${base}/callback/credentials`, {
    form: { csrfToken, username: "ada" },
  });
  expect(response.status).toBe(302);
  return jar;
}

describe("requireAuth keeps Express's request types", () => {
  it("the body a parser read and the route's params reach the handler after requireAuth", async () => {
    const jar = await signedIn("/auth");
    const response = await jar.fetch(`${server.url}/orders/42`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ item: "book" }),
    });
    expect(await response.json()).toEqual({ id: "42", body: { item: "book" }, user: "Ada" });
  });
});

describe("the session's expires is one type, an ISO string", () => {
  it("under JWT and database sessions alike, in the session callback and from getSession", async () => {
    seen.expires = [];
    const jwt = await signedIn("/auth");
    expect(await (await jwt.fetch(`${server.url}/expires/jwt`)).json()).toEqual({ expires: "string" });
    const database = await signedIn("/db/auth");
    expect(await (await database.fetch(`${server.url}/expires/database`)).json()).toEqual({ expires: "string" });
    expect(seen.expires.length).toBeGreaterThanOrEqual(2);
    for (const expires of seen.expires) expect(expires).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});
