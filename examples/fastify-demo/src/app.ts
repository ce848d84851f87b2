/**
 * The demo on Fastify: the Latchkey plugin under /auth, the home page reading the session, a
 * route guarded by `app.requireAuth()`, and the development mailbox. The configuration, storage,
 * mail catcher and identity provider are the Express demo's (`startDemo` runs them).
 */
import type { AppOptions } from "@latchkey/express-demo/demo";
import { type DemoSession, homeBody, layout, mailBody, protectedBody } from "@latchkey/express-demo/pages";
import latchkey, { getSession } from "@latchkey/fastify";
import Fastify from "fastify";

/** Builds the Fastify application and the Node request listener serving it. */
export async function createFastifyApp({ config, mailbox }: AppOptions) {
  const app = Fastify({ logger: { level: "warn" } }); // Latchkey's warnings and errors go to this log
  const page = (title: string, body: string) => layout(title, body, !!mailbox);

  // 1. Latchkey's routes: /auth/signin, /auth/callback/<provider>, /auth/session, /auth/signout ...
  await app.register(latchkey, { prefix: "/auth", ...config });

  // 2. A public page that shows who is signed in, and how.
  app.get("/", async (request, reply) =>
    reply.type("text/html").send(page("Latchkey demo", homeBody((await getSession(request)) as DemoSession | null))),
  );

  // 3. Routes for signed-in users only: without a session, off to sign-in and back here after.
  app.get("/protected", { preHandler: app.requireAuth() }, async (request, reply) =>
    reply.type("text/html").send(page("Protected page", protectedBody(request.session as DemoSession))),
  );
  app.get("/account", { preHandler: app.requireAuth() }, async (request, reply) =>
    reply
      .type("text/html")
      .send(page("Session", `<pre id="session">${JSON.stringify(request.session, null, 2)}</pre>`)),
  );

  // 4. Development only: the messages the demo's SMTP server caught, with their links.
  if (mailbox)
    app.get("/dev/mail", async (_request, reply) => reply.type("text/html").send(page("Mail", mailBody(mailbox))));

  await app.ready();
  return app.routing;
}
