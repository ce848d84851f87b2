// @latchkey/fastify held to the framework contract of @latchkey/adapter-test: the plugin under its
// prefix, getSession and app.requireAuth().
import { type FrameworkDriver, runFrameworkContract, sessionAnswer } from "@latchkey/adapter-test/framework";
import { hostileHostMailCases } from "@latchkey/adapter-test/hostile-hosts";
import Fastify from "fastify";
import { sessionReads } from "../../../test/frameworks/session-reads.js";
import latchkey, { getSession } from "../src/index.js";
import { serveHostileHosts } from "./hostile-hosts.js";

const fastify: FrameworkDriver = {
  name: "Fastify",
  defaultMount: "/auth",
  namesPeer: true,
  guard: "status",
  async start(config, { mount }) {
    const app = Fastify();
    await app.register(latchkey, { ...config, prefix: mount });
    app.get("/contract/session", async (request) => sessionAnswer(await getSession(request)));
    app.get("/contract/guarded", { preHandler: app.requireAuth() }, async (request) => ({
      id: request.session.user?.id,
    }));
    await app.listen({ port: 0, host: "127.0.0.1" });
    return { origin: `http://localhost:${(app.server.address() as { port: number }).port}`, close: () => app.close() };
  },
};

runFrameworkContract(fastify, [
  await sessionReads(false),
  (driver) => hostileHostMailCases(driver.name, serveHostileHosts),
]);
