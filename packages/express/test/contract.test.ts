// @latchkey/express held to the framework contract of @latchkey/adapter-test: ExpressAuth at the
// mount, getSession and requireAuth, requestPasswordReset and changePassword with the request's
// form, getCsrfToken and requireCsrf.
import type { AddressInfo } from "node:net";
import {
  apiKeyAnswer,
  CONTRACT_GUARDS,
  type FrameworkDriver,
  organizationAnswer,
  runFrameworkContract,
  sessionAnswer,
} from "@latchkey/adapter-test/framework";
import { hostileHostMailCases } from "@latchkey/adapter-test/hostile-hosts";
import express from "express";
import { sessionReads } from "../../../test/frameworks/session-reads.js";
import {
  changePassword,
  ExpressAuth,
  getCsrfToken,
  getSession,
  requestPasswordReset,
  requireApiKey,
  requireAuth,
  requireCsrf,
} from "../src/index.js";
import { serveHostileHosts } from "./hostile-hosts.js";

const express5: FrameworkDriver = {
  name: "Express",
  defaultMount: "/auth",
  namesPeer: true,
  guard: "status",
  organizationGuard: true,
  apiKeyGuard: true,
  seesRepeatedAuthorization: true,
  helpers: { requestPasswordReset: true, changePassword: true, csrf: true },
  async start(config, { mount, accounts, apiKeys }) {
    const app = express();
    app.use(mount, ExpressAuth(config));
    app.get("/contract/session", async (req, res) => {
      res.json(sessionAnswer(await getSession(req, config)));
    });
    app.get("/contract/guarded", requireAuth(config), (_req, res) => {
      res.json({ id: res.locals.session.user?.id });
    });
    if (config.organizations) {
      app.get("/contract/organization", requireAuth(config, CONTRACT_GUARDS.organization), (_req, res) => {
        res.json(organizationAnswer(res.locals.session));
      });
      app.get("/contract/permission", requireAuth(config, CONTRACT_GUARDS.permission), (_req, res) => {
        res.json(organizationAnswer(res.locals.session));
      });
    }
    if (apiKeys)
      app.get("/contract/api-key", requireApiKey(apiKeys, CONTRACT_GUARDS.apiKey), (_req, res) => {
        res.json(apiKeyAnswer(res.locals.apiKey as Parameters<typeof apiKeyAnswer>[0]));
      });
    app.post("/contract/forgot", express.urlencoded({ extended: false }), async (req, res) => {
      res.json(await requestPasswordReset(req, config, accounts));
    });
    app.post("/contract/change", express.urlencoded({ extended: false }), async (req, res) => {
      res.json(await changePassword(req, res, config, accounts));
    });
    app.get("/contract/csrf", async (req, res) => {
      res.json({ csrfToken: await getCsrfToken(req, res, config) });
    });
    app.post("/contract/csrf-checked", express.urlencoded({ extended: false }), requireCsrf(config), (_req, res) => {
      res.json({ ok: true });
    });
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    return {
      origin: `http://localhost:${(server.address() as AddressInfo).port}`,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  },
};

runFrameworkContract(express5, [
  await sessionReads(false),
  (driver) => hostileHostMailCases(driver.name, serveHostileHosts),
]);
