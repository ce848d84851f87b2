// Hono on @hono/node-server: HonoAuth's actions, and the accounts functions given Hono's Request
// (its URL built from Host), asked with a hostile Host, X-Forwarded-Host or Forwarded, mail no
// link to another host.
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { HostileHostApp, HostileHostServer } from "@latchkey/adapter-test/hostile-hosts";
import { requestPasswordReset, signUp } from "@latchkey/core/accounts";
import { Hono } from "hono";
import { HonoAuth } from "../src/index.js";

/** Serves the application of the hostile-host mail cases (see the comment above). */
export async function serveHostileHosts(app: HostileHostApp): Promise<HostileHostServer> {
  const hono = new Hono();
  hono.use("/auth/*", HonoAuth(app.own));
  hono.post("/forgot", async (c) => {
    const { email } = await c.req.json<{ email: string }>();
    return c.json({ ok: (await requestPasswordReset(c.req.raw, app.config(), app.accounts, { email })).ok });
  });
  hono.post("/signup", async (c) => {
    const { email, password } = await c.req.json<{ email: string; password: string }>();
    return c.json({ ok: (await signUp(c.req.raw, app.config(), app.accounts, { email, password })).ok });
  });
  const server = serve({ fetch: hono.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise((resolve) => server.once("listening", resolve));
  const url = `http://localhost:${(server.address() as AddressInfo).port}`;
  return {
    origin: url,
    mount: `${url}/auth`,
    forgot: `${url}/forgot`,
    signUp: `${url}/signup`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
