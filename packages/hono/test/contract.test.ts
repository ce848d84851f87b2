// @latchkey/hono on @hono/node-server held to the framework contract of @latchkey/adapter-test:
// HonoAuth at the mount, getSession, session() and requireAuth.
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import {
  apiKeyAnswer,
  CONTRACT_GUARDS,
  type FrameworkDriver,
  organizationAnswer,
  runFrameworkContract,
  sessionAnswer,
} from "@latchkey/adapter-test/framework";
import { hostileHostMailCases } from "@latchkey/adapter-test/hostile-hosts";
import { Hono } from "hono";
import { sessionReads } from "../../../test/frameworks/session-reads.js";
import { getSession, HonoAuth, requireApiKey, requireAuth, session } from "../src/index.js";
import { serveHostileHosts } from "./hostile-hosts.js";

const hono: FrameworkDriver = {
  name: "Hono",
  defaultMount: "/auth",
  namesPeer: true,
  guard: "status",
  organizationGuard: true,
  apiKeyGuard: true,
  seesRepeatedAuthorization: true,
  readers: ["/contract/session-variable"],
  async start(config, { mount, apiKeys }) {
    const app = new Hono();
    app.use(`${mount}/*`, HonoAuth(config));
    app.get("/contract/session", async (c) => c.json(sessionAnswer(await getSession(c, config))));
    app.get("/contract/session-variable", session(config), (c) => c.json(sessionAnswer(c.get("session"))));
    app.get("/contract/guarded", requireAuth(config), (c) => c.json({ id: c.get("session").user?.id }));
    if (config.organizations) {
      app.get("/contract/organization", requireAuth(config, CONTRACT_GUARDS.organization), (c) =>
        c.json(organizationAnswer(c.get("session"))),
      );
      app.get("/contract/permission", requireAuth(config, CONTRACT_GUARDS.permission), (c) =>
        c.json(organizationAnswer(c.get("session"))),
      );
    }
    if (apiKeys)
      app.get("/contract/api-key", requireApiKey(apiKeys, CONTRACT_GUARDS.apiKey), (c) =>
        c.json(apiKeyAnswer(c.get("apiKey"))),
      );
    const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
    await new Promise((resolve) => server.once("listening", resolve));
    return {
      origin: `http://localhost:${(server.address() as AddressInfo).port}`,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  },
};

runFrameworkContract(hono, [
  await sessionReads(true),
  (driver) => hostileHostMailCases(driver.name, serveHostileHosts),
]);
