/**
 * The demo on Hono: Latchkey's actions under /auth, the home page reading the session, a route
 * guarded by `requireAuth`, and the development mailbox. A plain Hono application (Web `Request`
 * in, `Response` out): `server.ts` serves it on Node.js with the Express demo's configuration,
 * storage, mail catcher and identity provider (`startDemo`); `portable.ts` serves it on any
 * runtime (`bun.ts`, `deno.ts`, `worker.ts`, `node.ts`).
 */
import type { AppOptions } from "@latchkey/express-demo/demo";
import { type DemoSession, homeBody, layout, mailBody, protectedBody } from "@latchkey/express-demo/pages";
import { getSession, HonoAuth, requireAuth } from "@latchkey/hono";
import { Hono } from "hono";

/** Builds the Hono application of the demo's configuration (and its mailbox, in development). */
export function createHonoApp({ config, mailbox }: Pick<AppOptions, "config" | "mailbox">): Hono {
  const app = new Hono();
  const page = (title: string, body: string) => layout(title, body, !!mailbox);

  // 1. Latchkey's routes: /auth/signin, /auth/callback/<provider>, /auth/session, /auth/signout ...
  app.use("/auth/*", HonoAuth(config));

  // 2. A public page that shows who is signed in, and how.
  app.get("/", async (c) =>
    c.html(page("Latchkey demo", homeBody((await getSession(c, config)) as DemoSession | null))),
  );

  // 3. Routes for signed-in users only: without a session, off to sign-in and back here after.
  app.get("/protected", requireAuth(config), (c) =>
    c.html(page("Protected page", protectedBody(c.get("session") as DemoSession))),
  );
  app.get("/account", requireAuth(config), (c) =>
    c.html(page("Session", `<pre id="session">${JSON.stringify(c.get("session"), null, 2)}</pre>`)),
  );

  // 4. Development only: the messages the demo's SMTP server caught, with their links.
  if (mailbox) app.get("/dev/mail", (c) => c.html(page("Mail", mailBody(mailbox))));

  return app;
}
