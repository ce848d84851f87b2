// Fastify: the plugin (which works on its own copy of the options, as `register` gives them),
// getSession(request), requireAuth(), and the core's Auth() on a configuration made per request in
// a route of the same application, are one application.
import { Auth } from "@latchkey/core";
import Fastify from "fastify";
import { oneApplicationSuite } from "../../../test/frameworks/one-application.js";
import latchkey, { getSession } from "../src/index.js";

oneApplicationSuite("Fastify", async (app) => {
  const fastify = Fastify();
  await fastify.register(latchkey, { prefix: "/auth", ...app.own });
  fastify.get("/me", async (request) => ({ id: (await getSession(request))?.user?.id ?? null }));
  fastify.get("/guarded", { preHandler: fastify.requireAuth() }, async (request) => ({ id: request.session.user?.id }));
  await fastify.register(
    async (scope) => {
      scope.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_r, body, done) =>
        done(null, body),
      );
      scope.route({
        method: ["GET", "POST"],
        url: "/*",
        handler: async (request, reply) => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(request.headers))
            if (typeof value === "string") headers.set(name, value);
          const response = await Auth(
            new Request(`http://${request.host}${request.url}`, {
              method: request.method,
              headers,
              body: request.method === "POST" ? String(request.body ?? "") : undefined,
            }),
            // Made for this request: the peer's address as the plugin gives it (Fastify's request.ip).
            { ...app.config(), basePath: "/core/auth", clientAddress: () => request.ip },
          );
          reply.code(response.status);
          response.headers.forEach((value, name) => {
            if (name !== "set-cookie") reply.header(name, value);
          });
          reply.header("set-cookie", response.headers.getSetCookie());
          return reply.send(await response.text());
        },
      });
    },
    { prefix: "/core/auth" },
  );
  await fastify.listen({ port: 0, host: "127.0.0.1" });
  const url = `http://localhost:${(fastify.server.address() as { port: number }).port}`;
  return {
    origin: url,
    mounts: [`${url}/auth`, `${url}/core/auth`],
    readers: [`${url}/me`, `${url}/guarded`],
    close: () => fastify.close(),
  };
});
