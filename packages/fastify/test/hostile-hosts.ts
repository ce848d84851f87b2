// Fastify (`trustProxy` off, as by default): the plugin's actions, and the accounts functions
// given where Fastify says the request arrived, asked with a hostile Host, X-Forwarded-Host or
// Forwarded, mail no link to another host.
import type { AddressInfo } from "node:net";
import type { HostileHostApp, HostileHostServer } from "@latchkey/adapter-test/hostile-hosts";
import { requestPasswordReset, signUp } from "@latchkey/core/accounts";
import Fastify, { type FastifyRequest } from "fastify";
import latchkey from "../src/index.js";

/** Where the request arrived as Fastify says (its `trustProxy` applied), as an application hands it over. */
const arrival = (request: FastifyRequest) => ({
  protocol: request.protocol,
  host: request.host,
  cookieHeader: request.headers.cookie,
});

/** Serves the application of the hostile-host mail cases (see the comment above). */
export async function serveHostileHosts(app: HostileHostApp): Promise<HostileHostServer> {
  const fastify = Fastify();
  await fastify.register(latchkey, { prefix: "/auth", ...app.own });
  fastify.post<{ Body: { email: string } }>("/forgot", async (request) => ({
    ok: (await requestPasswordReset(arrival(request), app.config(), app.accounts, { email: request.body.email })).ok,
  }));
  fastify.post<{ Body: { email: string; password: string } }>("/signup", async (request) => ({
    ok: (await signUp(arrival(request), app.config(), app.accounts, request.body)).ok,
  }));
  await fastify.listen({ port: 0, host: "127.0.0.1" });
  const url = `http://localhost:${(fastify.server.address() as AddressInfo).port}`;
  return {
    origin: url,
    mount: `${url}/auth`,
    forgot: `${url}/forgot`,
    signUp: `${url}/signup`,
    close: () => fastify.close(),
  };
}
