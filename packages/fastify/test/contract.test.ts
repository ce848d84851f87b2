// @latchkey/fastify held to the framework contract of @latchkey/adapter-test: the plugin under its
// prefix, getSession and app.requireAuth().
import {
  apiKeyAnswer,
  CONTRACT_GUARDS,
  type FrameworkDriver,
  organizationAnswer,
  runFrameworkContract,
  sessionAnswer,
} from "@latchkey/adapter-test/framework";
import { hostileHostMailCases } from "@latchkey/adapter-test/hostile-hosts";
import Fastify from "fastify";
import { sessionReads } from "../../../test/frameworks/session-reads.js";
import latchkey, { getSession, requireApiKey } from "../src/index.js";
import { serveHostileHosts } from "./hostile-hosts.js";

const fastify: FrameworkDriver = {
  name: "Fastify",
  defaultMount: "/auth",
  namesPeer: true,
  guard: "status",
  organizationGuard: true,
  apiKeyGuard: true,
  seesRepeatedAuthorization: true,
  async start(config, { mount, apiKeys }) {
    const app = Fastify();
    await app.register(latchkey, { ...config, prefix: mount });
    app.get("/contract/session", async (request) => sessionAnswer(await getSession(request)));
    app.get("/contract/guarded", { preHandler: app.requireAuth() }, async (request) => ({
      id: request.session.user?.id,
    }));
    if (config.organizations) {
      app.get(
        "/contract/organization",
        { preHandler: app.requireAuth(CONTRACT_GUARDS.organization) },
        async (request) => organizationAnswer(request.session),
      );
      app.get("/contract/permission", { preHandler: app.requireAuth(CONTRACT_GUARDS.permission) }, async (request) =>
        organizationAnswer(request.session),
      );
    }
    if (apiKeys)
      app.get("/contract/api-key", { preHandler: requireApiKey(apiKeys, CONTRACT_GUARDS.apiKey) }, async (request) =>
        apiKeyAnswer(request.apiKey),
      );
    await app.listen({ port: 0, host: "127.0.0.1" });
    return { origin: `http://localhost:${(app.server.address() as { port: number }).port}`, close: () => app.close() };
  },
};

runFrameworkContract(fastify, [
  await sessionReads(false),
  (driver) => hostileHostMailCases(driver.name, serveHostileHosts),
]);
