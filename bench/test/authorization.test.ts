/**
 * A correctness guard of the authorization-server benchmark (bench/authorization.mjs), not a
 * benchmark: nothing here is timed. Latchkey and oidc-provider, each in the process the benchmark
 * starts, must answer every case with tokens (an ID token for the code exchange), the resource
 * route must let the token in and refuse a request without it, and both must keep answering under
 * a short load of many codes and repeated refreshes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: plain ESM without type declarations
import { APPS, CASES, labelOf, materialOf, memberRequest, SERVER_FILE, verifyMember } from "../authorization-cases.mjs";
import { load, send, startServer } from "../lib.mjs";

interface Server {
  app: string;
  port: number;
  ask(op: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}
interface Member {
  app: string;
  label?: string;
}
interface Case {
  id: string;
  amount?: boolean;
  members: Member[];
}

const servers: Record<string, Server> = {};
const material: Record<string, Record<string, string>> = {};

beforeAll(async () => {
  for (const app of APPS as string[]) {
    servers[app] = (await startServer(app, { file: SERVER_FILE })) as Server;
    material[app] = await materialOf(servers[app]);
  }
});
afterAll(async () => {
  for (const server of Object.values(servers)) await server.stop();
});

describe("the authorization-server benchmark's cases", () => {
  for (const kase of CASES as Case[]) {
    for (const member of kase.members) {
      it(`${kase.id} on ${labelOf(member)} answers right, and keeps doing so under load`, async () => {
        const server = servers[member.app] as Server;
        expect(await verifyMember(kase, member, server, material[member.app])).toBeNull();
        const request = await memberRequest(kase, member, server, material[member.app], 60);
        const result = await load(server, request, kase.amount ? { amount: 60 } : { amount: 60, connections: 5 });
        expect(result.statuses).toEqual({ 200: 60 });
        expect(result.serverErrors).toBe(0);
      });
    }
  }

  // The bench makes each run's codes just before it, after runs that stored thousands of records;
  // oidc-provider's default memory adapter kept about 1,000 and answered 400 to the early codes
  // and to the refresh token made at the start. Both sides must keep everything, as a store does.
  it("more codes than oidc-provider's default memory cache holds are each exchanged once, and the first refresh token still works after them", async () => {
    const codeCase = (CASES as Case[]).find((c) => c.id === "code") as Case;
    const refreshCase = (CASES as Case[]).find((c) => c.id === "refresh") as Case;
    const count = 1200;
    for (const member of codeCase.members) {
      const server = servers[member.app] as Server;
      const request = await memberRequest(codeCase, member, server, material[member.app], count);
      expect(new Set(request.bodies).size).toBe(count);
      const result = await load(server, request, { amount: count });
      expect(result.statuses, member.app).toEqual({ 200: count });
      // Spent: each code works once, so a code sent twice during a run would show as a 400.
      const replay = await send(server.port, { ...request, body: request.bodies[0] });
      expect(replay.status, member.app).toBe(400);
      expect(JSON.parse(replay.body).error).toBe("invalid_grant");
    }
    for (const member of refreshCase.members) {
      const server = servers[member.app] as Server;
      const request = await memberRequest(refreshCase, member, server, material[member.app], 0);
      expect((await send(server.port, request)).status, member.app).toBe(200);
    }
  }, 120_000);

  it("the resource route refuses a request without a token, and a token of another issuer", async () => {
    const server = servers.latchkey as Server;
    expect((await send(server.port, { path: "/api" })).status).toBe(401);
    const oidc = servers["oidc-provider"] as Server;
    const issued = await send(oidc.port, {
      method: "POST",
      path: "/token",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: material["oidc-provider"]?.basic },
      body: material["oidc-provider"]?.clientCredentialsBody,
    });
    const { access_token } = JSON.parse(issued.body) as { access_token: string };
    const response = await send(server.port, { path: "/api", headers: { authorization: `Bearer ${access_token}` } });
    expect(response.status).toBe(401);
    // The signature-only routes verify too: a token whose signature is not the keys' is refused.
    const token = material.latchkey?.accessToken ?? "";
    const [head, body, signature = ""] = token.split(".");
    const flipped = `${head}.${body}.${signature.startsWith("A") ? "B" : "A"}${signature.slice(1)}`;
    for (const path of ["/api", "/api-jose", "/api-node"]) {
      expect((await send(server.port, { path, headers: { authorization: `Bearer ${token}` } })).status, path).toBe(200);
      expect((await send(server.port, { path, headers: { authorization: `Bearer ${flipped}` } })).status, path).toBe(
        401,
      );
    }
  });
});
