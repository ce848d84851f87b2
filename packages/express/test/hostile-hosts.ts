// Express (`trust proxy` off, as by default): the actions of ExpressAuth and the account wrappers,
// asked with a hostile Host, X-Forwarded-Host or Forwarded, mail no link to another host.
import type { HostileHostApp, HostileHostServer } from "@latchkey/adapter-test/hostile-hosts";
import express from "express";
import { requestPasswordReset, signUp } from "../src/accounts.js";
import { ExpressAuth } from "../src/index.js";
import { listen } from "./helpers.js";

/** Serves the application of the hostile-host mail cases (see the comment above). */
export async function serveHostileHosts(app: HostileHostApp): Promise<HostileHostServer> {
  const server = express();
  server.use("/auth", ExpressAuth(app.own));
  server.post("/forgot", express.json(), async (req, res) => {
    res.json({ ok: (await requestPasswordReset(req, app.config(), app.accounts)).ok });
  });
  server.post("/signup", express.json(), async (req, res) => {
    res.json({ ok: (await signUp(req, res, app.config(), app.accounts)).ok });
  });
  const { url, close } = await listen(server);
  return { origin: url, mount: `${url}/auth`, forgot: `${url}/forgot`, signUp: `${url}/signup`, close };
}
