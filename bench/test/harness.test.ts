/**
 * A correctness guard of the benchmark harness (bench/), not a benchmark: nothing here is timed.
 * Every server the benchmark starts must answer every case it is measured on with the expected
 * status and body (so the numbers measure real work: the signed-in session GET returns the user,
 * the credentials POST signs in, the database session is found), must keep doing so under
 * repeated load (the reused CSRF pair stays valid, no rate limit cuts in), and must answer the
 * harness's IPC requests (CPU and request counters, GC).
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { serviceAvailable } from "@latchkey/adapter-test/services";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
// @ts-expect-error: plain ESM without type declarations
import { buildSvelteKitDemo } from "../../test/frameworks/sveltekit-build.js";
import { APPS, CASES, load, prepare, startServer, verify } from "../lib.mjs";

interface Server {
  app: string;
  port: number;
  prepared: Record<string, string>;
  ask(op: string): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}
interface Case {
  id: string;
  apps: string[];
  status: number;
  request(prepared: Record<string, string>): { method: string; path: string; headers?: object; body?: string };
}

const sqlAdapterBuilt = existsSync(fileURLToPath(new URL("../../packages/sql-adapter/dist/index.js", import.meta.url)));
const postgresUp = sqlAdapterBuilt && (await serviceAvailable("PostgreSQL", 5432));
const redisUp = await serviceAvailable("Redis", 6379);
const runnable = (APPS as string[]).filter(
  (app) =>
    (app !== "latchkey-postgres-credentials" || postgresUp) &&
    (app !== "latchkey-sqlite" || sqlAdapterBuilt) &&
    (!["latchkey-postgres", "latchkey-postgres-cache", "authjs-postgres"].includes(app) || postgresUp) &&
    (app !== "latchkey-revocation" || redisUp),
);

const servers: Record<string, Server> = {};

beforeAll(async () => {
  if (runnable.some((app) => app.startsWith("sveltekit"))) await buildSvelteKitDemo();
  await Promise.all(
    runnable.map(async (app) => {
      const server = (await startServer(app, { timeoutMs: 60_000 * inject("timeScale") })) as Server;
      servers[app] = server;
      server.prepared = await prepare(server);
    }),
  );
}, 180_000 * inject("timeScale"));

afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s.stop()));
}, 60_000 * inject("timeScale"));

describe("bench harness", () => {
  // Each framework's bare route, the reference of its cases, answers as Express's does.
  for (const app of runnable.filter((a) => a.endsWith("-bare"))) {
    it(`bare on ${app}: expected status and body`, async () => {
      expect(await verify((CASES as Case[]).find((c) => c.id === "bare")!, servers[app])).toBeNull();
    });
  }
  for (const kase of CASES as Case[]) {
    for (const app of kase.apps) {
      it.runIf(runnable.includes(app))(`${kase.id} on ${app}: expected status and body`, async () => {
        expect(await verify(kase, servers[app])).toBeNull();
      });
    }
  }

  it("the signed-in requests carry a browser's cookies: a distinct session token per library", () => {
    const token = (app: string) =>
      /authjs\.session-token=(eyJ[^;]+)/.exec(servers[app]?.prepared.sessionCookie ?? "")?.[1];
    for (const app of ["latchkey", "authjs"]) {
      expect(servers[app]?.prepared.sessionCookie).toContain("authjs.csrf-token=");
      expect(token(app)).toBeDefined();
    }
    expect(token("latchkey")).not.toBe(token("authjs"));
  });

  for (const app of ["latchkey", "authjs"]) {
    it(`${app}: 300 credentials sign-ins with the one reused CSRF pair all succeed`, async () => {
      const kase = (CASES as Case[]).find((c) => c.id === "credentials")!;
      const result = await load(servers[app], kase.request(servers[app].prepared), { amount: 300, connections: 4 });
      expect(result.statuses).toEqual({ 302: 300 });
      expect(result.errors).toBe(0);
      expect(result.serverErrors).toBe(0);
      // Still valid afterwards, with a right answer (not only the status).
      expect(await verify(kase, servers[app])).toBeNull();
    });
  }

  it("servers report CPU and request counters, and collect garbage on request", async () => {
    const server = servers.latchkey!;
    const before = await server.ask("stats");
    const kase = (CASES as Case[]).find((c) => c.id === "session")!;
    const result = await load(server, kase.request(server.prepared), { amount: 200, connections: 4 });
    const after = await server.ask("stats");
    expect(result.statuses).toEqual({ 200: 200 });
    expect((after.requests as number) - (before.requests as number)).toBe(200);
    expect(result.cpuUs).toBeGreaterThan(0);
    expect(typeof after.now).toBe("number");
    const gc = await server.ask("gc");
    expect(gc.gc).toBe(true);
    expect(gc.heapUsed).toBeGreaterThan(0);
  });
});
