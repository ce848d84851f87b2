// Type tests against Express 4's own types (`@types/express4` is @types/express 4 under another
// name, as `express4` is Express 4): requireAuth before the handlers an Express 4 application
// writes. Checked by `npm run typecheck` (tsconfig.test.json); nothing runs. The same routes run
// under Express 5's types, with requests, in types.test.ts.
import type { AuthConfig } from "@latchkey/core";
import Credentials from "@latchkey/core/providers/credentials";
import express4, { type Request, type RequestHandler, type Response } from "express4";
import { expectTypeOf } from "vitest";
import { requireAuth, type SessionLocals, type SessionOf } from "../src/index.js";

const config = {
  providers: [Credentials({ authorize: () => null })],
  callbacks: { session: ({ session }) => ({ ...session, plan: "pro" as const }) },
} satisfies AuthConfig;
type AppSession = SessionOf<typeof config>;
type Locals = SessionLocals<typeof config>;
type Order = { item: string };

// The `express4` name resolves to Express 4's types, not 5's (4's `Request` has `param()`).
expectTypeOf<Request>().toHaveProperty("param");

const app = express4();
const router = express4.Router();

// Unannotated: Express's params and body, and the application's session, non-null.
app.post("/orders/:id", requireAuth(config), (req, res) => {
  expectTypeOf(req.params.id).toEqualTypeOf<string>();
  expectTypeOf(req.body).toBeAny();
  expectTypeOf(res.locals.session).toEqualTypeOf<AppSession>();
  expectTypeOf(res.locals.session.plan).toEqualTypeOf<"pro">();
  // @ts-expect-error the session callback gives no `role`: the session is typed, not `any`
  res.locals.session.role;
});

// A typed request body and params; Express's default locals (`session` is `any`) unless the
// response names SessionLocals.
app.post("/typed/:id", requireAuth(config), (req: Request<{ id: string }, unknown, Order>, res) => {
  expectTypeOf(req.body).toEqualTypeOf<Order>();
  expectTypeOf(req.params.id).toEqualTypeOf<string>();
  expectTypeOf(res.locals.session).toBeAny();
});
app.post("/typed-locals", requireAuth(config), (req: Request<{}, unknown, Order>, res: Response<unknown, Locals>) => {
  expectTypeOf(req.body).toEqualTypeOf<Order>();
  expectTypeOf(res.locals.session).toEqualTypeOf<AppSession>();
});

// RequestHandler-annotated handlers, with and without SessionLocals.
const annotated: RequestHandler<{ id: string }, unknown, Order, Request["query"], Locals> = (req, res) => {
  expectTypeOf(req.body).toEqualTypeOf<Order>();
  expectTypeOf(res.locals.session).toEqualTypeOf<AppSession>();
};
const plain: RequestHandler<{ id: string }, unknown, Order> = (req) => {
  expectTypeOf(req.body).toEqualTypeOf<Order>();
};
app.post("/annotated/:id", requireAuth(config), annotated);
app.put("/annotated/:id", requireAuth(config), plain);

// A router's routes, app.route(), app.use() and router.use().
router.post("/:id", requireAuth(config), (req, res) => {
  expectTypeOf(req.params.id).toEqualTypeOf<string>();
  expectTypeOf(res.locals.session).toEqualTypeOf<AppSession>();
});
router.post("/typed/:id", requireAuth(config), (req: Request<{ id: string }, unknown, Order>) => {
  expectTypeOf(req.body).toEqualTypeOf<Order>();
});
app.route("/route/:id").post(requireAuth(config), (_req, res) => {
  expectTypeOf(res.locals.session).toEqualTypeOf<AppSession>();
});
router.use(requireAuth(config));
app.use("/admin", requireAuth(config), router);

// A handler whose locals give `session` another type than the application's is refused.
// @ts-expect-error `session` is the application's session, not a number
app.post("/wrong", requireAuth(config), (_req, res: Response<unknown, { session: number }>) => res.end());
