// Express: the handler mounted twice (the application's object, and a copy of it), getSession with
// the application's object and with one made per request, and requireAuth, are one application.
import express from "express";
import { oneApplicationSuite } from "../../../test/frameworks/one-application.js";
import { ExpressAuth, getSession, requireAuth } from "../src/index.js";
import { listen } from "./helpers.js";

oneApplicationSuite("Express", async (app) => {
  const server = express();
  server.use("/auth", ExpressAuth(app.own));
  server.use("/again/auth", ExpressAuth(app.config()));
  server.get("/me", async (req, res) => {
    res.json({ id: (await getSession(req, app.own))?.user?.id ?? null });
  });
  server.get("/me-per-request", async (req, res) => {
    res.json({ id: (await getSession(req, app.config()))?.user?.id ?? null });
  });
  server.get("/guarded", requireAuth(app.own), (_req, res) => {
    res.json({ id: res.locals.session.user?.id });
  });
  const { url, close } = await listen(server);
  return {
    origin: url,
    mounts: [`${url}/auth`, `${url}/again/auth`],
    readers: [`${url}/me`, `${url}/me-per-request`, `${url}/guarded`],
    close,
  };
});
