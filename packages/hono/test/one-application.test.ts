// Hono: HonoAuth with the application's object and with a copy under app.route("/api", ...),
// getSession with a configuration made per request, session() and requireAuth, are one application.
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { oneApplicationSuite } from "../../../test/frameworks/one-application.js";
import { getSession, HonoAuth, requireAuth, session } from "../src/index.js";

oneApplicationSuite("Hono", async (app) => {
  const hono = new Hono();
  hono.use("/auth/*", HonoAuth(app.own));
  hono.get("/me-per-request", async (c) => c.json({ id: (await getSession(c, app.config()))?.user?.id ?? null }));
  hono.get("/who", session(app.own), (c) => c.json({ id: c.get("session")?.user?.id ?? null }));
  hono.get("/guarded", requireAuth(app.own), (c) => c.json({ id: c.get("session").user?.id }));
  const api = new Hono();
  api.use("/auth/*", HonoAuth(app.config()));
  hono.route("/api", api);
  const server = serve({ fetch: hono.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise((resolve) => server.once("listening", resolve));
  const url = `http://localhost:${(server.address() as AddressInfo).port}`;
  return {
    origin: url,
    mounts: [`${url}/auth`, `${url}/api/auth`],
    readers: [`${url}/me-per-request`, `${url}/who`, `${url}/guarded`],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
});
