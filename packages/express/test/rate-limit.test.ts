import { randomBytes } from "node:crypto";
import type { AuthConfig } from "@latchkey/core";
import Credentials from "@latchkey/core/providers/credentials";
import express5 from "express";
import express4 from "express4";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExpressAuth } from "../src/index.js";
import { Jar, listen } from "./helpers.js";

/**
 * A configuration whose authorize() counts its calls; an application of its own (its own secret:
 * Latchkey keeps limits per application, and each test starts from zero).
 */
function setup() {
  const calls = { n: 0 };
  const config: AuthConfig = {
    secret: `express-rate-limit-${randomBytes(16).toString("hex")}`,
    trustHost: true,
    logger: { error() {}, warn() {}, debug() {} },
    providers: [
      Credentials({
        credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
        authorize: async (c) => {
          calls.n++;
          return c.username === "ada" && c.password === "lovelace" ? { id: "u1", name: "Ada" } : null;
        },
      }),
    ],
  };
  return { config, calls };
}

async function attempt(base: string, mount: string, password: string, headers: Record<string, string> = {}) {
  const jar = new Jar();
  const { csrfToken } = (await (await jar.fetch(`${base}${mount}/csrf`, { headers })).json()) as { csrfToken: string };
  return jar.fetch(`${base}${mount}/callback/credentials`, {
    headers,
    form: { csrfToken, username: "ada", password },
  });
}

type Express = typeof express5;

for (const [label, express] of [
  ["Express 4", express4 as unknown as Express],
  ["Express 5", express5],
] as const) {
  describe(`${label}: rule: the limits belong to the application's configuration, whatever reaches it`, () => {
    const servers: Array<{ close(): Promise<void> }> = [];
    afterAll(async () => {
      await Promise.all(servers.map((s) => s.close()));
    });
    async function start(setupApp: (app: ReturnType<Express>) => void) {
      const app = express();
      setupApp(app);
      const server = await listen(app);
      servers.push(server);
      return server.url;
    }

    let base = "";
    let calls = { n: 0 };
    beforeAll(async () => {
      const made = setup();
      calls = made.calls;
      base = await start((app) => app.use("/auth", ExpressAuth(made.config)));
    });

    it("spelling the mount path another way (/AUTH, /Auth, /aUtH, ...) gives no fresh counter", async () => {
      const spellings = ["/auth", "/AUTH", "/Auth", "/aUtH", "/AuTh", "/auTH", "/AUth", "/autH"];
      const answers = [];
      for (const mount of spellings) answers.push(await attempt(base, mount, `guess-${mount}`));
      expect(calls.n).toBe(5);
      expect(answers.filter((r) => r.status === 429)).toHaveLength(spellings.length - 5);
      expect((await attempt(base, "/AUTH", "lovelace")).status).toBe(429);
    });

    it("behind a proxy trusted by hop count, a client-written X-Forwarded-For gives no fresh counter", async () => {
      const made = setup();
      const url = await start((app) => {
        app.set("trust proxy", 1);
        app.use("/auth", ExpressAuth(made.config));
      });
      // The proxy appends the address it saw; whatever the client wrote before it is ignored.
      for (let i = 0; i < 12; i++) {
        const forged = `${randomBytes(2).readUInt16BE()}.0.0.1, 10.${i}.0.1`;
        await attempt(url, "/auth", "wrong", { "x-forwarded-for": `${forged}, 203.0.113.7` });
      }
      expect(made.calls.n).toBe(5);
      const owner = await attempt(url, "/auth", "lovelace", { "x-forwarded-for": "203.0.113.7, 198.51.100.20" });
      expect(owner.status).toBe(302);
      expect(owner.headers.get("location")).toBe(url);
    });
  });
}
