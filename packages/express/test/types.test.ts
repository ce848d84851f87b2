/**
 * Types that help (issue 25, item 4): `requireAuth` in an Express route chain leaves Express's
 * request types alone (`req.body`, `req.params`) however the handlers after it are typed (an
 * unannotated `(req, res)`, a typed `req`, a `RequestHandler<...>`, a router's route), with
 * `res.locals.session` typed as the application's session, and the session's `expires` is one type, a
 * string, in the `session` callback under either strategy and in what `getSession` returns.
 * The type assertions are checked by `npm run typecheck`; the requests check the same at run time.
 */
import type { AuthConfig } from "@latchkey/core";
import { MemoryAdapter } from "@latchkey/core/memory-adapter";
import Credentials from "@latchkey/core/providers/credentials";
import express, { type RequestHandler } from "express";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { ExpressAuth, getSession, requireAuth, type SessionLocals, type SessionOf } from "../src/index.js";
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

type AppSession = SessionOf<typeof config>;
type Locals = SessionLocals<typeof config>;
type Query = express.Request["query"];
type Order = { item: string };

/** A handler typed by a `RequestHandler<P, ResBody, ReqBody, Query, Locals>` annotation. */
const annotated: RequestHandler<{ id: string }, { id: string; item: string; user: string }, Order, Query, Locals> = (
  req,
  res,
) => {
  expectTypeOf(req.body).toEqualTypeOf<Order>();
  expectTypeOf(res.locals.session).toEqualTypeOf<AppSession>();
  res.json({ id: req.params.id, item: req.body.item, user: res.locals.session.user.name ?? "" });
};

/** The same annotation without `Locals`: Express's default locals, in which `session` is `any`. */
const annotatedWithoutLocals: RequestHandler<{ id: string }, unknown, Order> = (req, res) => {
  expectTypeOf(req.body).toEqualTypeOf<Order>();
  expectTypeOf(res.locals.session).toBeAny();
  res.json({ id: req.params.id, item: req.body.item });
};

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
    expectTypeOf(res.locals.session).toEqualTypeOf<AppSession>();
    // @ts-expect-error the session callback gives no `role`: the session is typed, not `any`
    res.locals.session.role;
    res.json({ id: req.params.id, body: req.body, user: res.locals.session.user?.name });
  });
  // A handler that types its own request body (and params) with Express's `Request`.
  app.post("/typed/:id", requireAuth(config), (req: express.Request<{ id: string }, unknown, Order>, res) => {
    expectTypeOf(req.body).toEqualTypeOf<Order>();
    expectTypeOf(req.params.id).toEqualTypeOf<string>();
    // Its `Request<P, ResBody, ReqBody>` fixes Express's default locals: `session` is `any` there...
    expectTypeOf(res.locals.session).toBeAny();
    res.json({ id: req.params.id, item: req.body.item, user: (res.locals.session as AppSession).user.name });
  });
  // ...and naming `SessionLocals` as the request's fifth type argument types it again.
  app.post(
    "/typed-locals/:id",
    requireAuth(config),
    (req: express.Request<{ id: string }, unknown, Order, Query, Locals>, res) => {
      expectTypeOf(req.body).toEqualTypeOf<Order>();
      expectTypeOf(res.locals.session).toEqualTypeOf<AppSession>();
      res.json({ id: req.params.id, item: req.body.item, user: res.locals.session.user.name });
    },
  );
  // A typed response alone.
  app.post("/typed-response", requireAuth(config), (req, res: express.Response<{ user: string }, Locals>) => {
    expectTypeOf(req.body).toBeAny();
    expectTypeOf(res.locals.session).toEqualTypeOf<AppSession>();
    res.json({ user: res.locals.session.user.name ?? "" });
  });
  // `RequestHandler<...>`-annotated handlers, with and without `Locals`.
  app.post("/annotated/:id", requireAuth(config), annotated);
  app.post("/annotated-default/:id", requireAuth(config), annotatedWithoutLocals);
  // A router's routes, and `app.route(...)`.
  const router = express.Router();
  router.post("/:id", requireAuth(config), (req, res) => {
    expectTypeOf(req.params.id).toEqualTypeOf<string>();
    expectTypeOf(res.locals.session).toEqualTypeOf<AppSession>();
    res.json({ id: req.params.id, body: req.body, user: res.locals.session.user.name });
  });
  router.post("/typed/:id", requireAuth(config), (req: express.Request<{ id: string }, unknown, Order>, res) => {
    expectTypeOf(req.body).toEqualTypeOf<Order>();
    res.json({ id: req.params.id, item: req.body.item });
  });
  router.put("/annotated/:id", requireAuth(config), annotated);
  app.use("/router", router);
  app
    .route("/route/:id")
    .post(requireAuth(config), (req, res) =>
      res.json({ id: req.params.id, body: req.body, user: res.locals.session.user.name }),
    );
  // A handler whose locals give `session` another type than the application's is refused.
  // @ts-expect-error `session` is the application's session, not a number
  app.post("/wrong", requireAuth(config), (_req, res: express.Response<unknown, { session: number }>) => res.end());
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

  it("handlers that type their own request, response or RequestHandler get the session and the body", async () => {
    const jar = await signedIn("/auth");
    const post = async (path: string, method = "POST") => {
      const response = await jar.fetch(`${server.url}${path}`, {
        method,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ item: "book" }),
      });
      expect(response.status).toBe(200);
      return response.json();
    };
    expect(await post("/typed/7")).toEqual({ id: "7", item: "book", user: "Ada" });
    expect(await post("/typed-locals/7")).toEqual({ id: "7", item: "book", user: "Ada" });
    expect(await post("/typed-response")).toEqual({ user: "Ada" });
    expect(await post("/annotated/7")).toEqual({ id: "7", item: "book", user: "Ada" });
    expect(await post("/annotated-default/7")).toEqual({ id: "7", item: "book" });
    expect(await post("/router/7")).toEqual({ id: "7", body: { item: "book" }, user: "Ada" });
    expect(await post("/router/typed/7")).toEqual({ id: "7", item: "book" });
    expect(await post("/router/annotated/7", "PUT")).toEqual({ id: "7", item: "book", user: "Ada" });
    expect(await post("/route/7")).toEqual({ id: "7", body: { item: "book" }, user: "Ada" });
  });

  it("a signed-out request stops at requireAuth, whatever the handler after it is typed as", async () => {
    for (const path of ["/typed/7", "/typed-locals/7", "/annotated/7", "/router/typed/7", "/route/7"]) {
      const response = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ item: "book" }),
      });
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: string }).error).toBe("SessionRequired");
    }
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
