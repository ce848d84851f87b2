/**
 * `RedisAuthorizationStore` against the conformance suite every `AuthorizationStore` runs (two
 * instances, each on its own connection to one Redis), then the authorization server's races over
 * it: a code exchanged by 30 requests at once, a refresh token used by 30 at once on two instances.
 */
import { randomBytes } from "node:crypto";
import { runAuthorizationStoreConformance } from "@latchkey/adapter-test/authorization-store";
import { serviceAvailable } from "@latchkey/adapter-test/services";
import { RedisAuthorizationStore } from "@latchkey/redis-adapter";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import {
  codeFor,
  exchange,
  makeApp,
  publicClient,
  send,
  signedInBrowser,
  tokensFor,
} from "../../core/test/authorization-server/support.js";

const redisUp = await serviceAvailable("Redis", 6379);

/** Two connections under one fresh prefix, and how to remove what they stored. */
function instances() {
  const prefix = `latchkey-authz-conformance:${randomBytes(4).toString("hex")}:`;
  const clients: [Redis, Redis] = [
    new Redis({ host: "127.0.0.1", port: 6379 }),
    new Redis({ host: "127.0.0.1", port: 6379 }),
  ];
  return {
    stores: [RedisAuthorizationStore(clients[0], { prefix }), RedisAuthorizationStore(clients[1], { prefix })] as const,
    async teardown() {
      const keys = await clients[0].keys(`${prefix}*`);
      if (keys.length) await clients[0].del(...keys);
      for (const client of clients) client.disconnect();
    },
  };
}

runAuthorizationStoreConformance(
  "RedisAuthorizationStore (Redis at 127.0.0.1:6379)",
  async () => {
    const { stores, teardown } = instances();
    return { stores: [stores[0], stores[1]], teardown };
  },
  { skip: !redisUp },
);

describe.skipIf(!redisUp)("the authorization server over RedisAuthorizationStore", () => {
  const used = instances();
  afterAll(() => used.teardown());

  it("exchanges a code once, and moves a refresh family on once, when 30 requests arrive at once on two instances", async () => {
    const app = await makeApp({ store: used.stores[0], signing: { algorithms: ["ES256"] } });
    const other = { ...app, server: (await makeApp({ store: used.stores[1] })).server };
    const client = await publicClient(app);
    const jar = await signedInBrowser(app);
    const { code, verifier } = await codeFor(app, client.clientId, jar);
    const exchanges = await Promise.all(
      Array.from({ length: 30 }, (_, i) => exchange(i % 2 ? app : other, client.clientId, code, verifier)),
    );
    expect(exchanges.filter((r) => r.status === 200)).toHaveLength(1);
    const tokens = await tokensFor(app, client.clientId, jar);
    const refreshes = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        send(i % 2 ? app : other, "/oauth/token", {
          form: { grant_type: "refresh_token", refresh_token: tokens.refresh_token ?? "", client_id: client.clientId },
        }),
      ),
    );
    expect(refreshes.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
  });
});

describe("the MCP profile's clients when the store is down", () => {
  it("answers a registration 503 (logged), never 500 or a half-written client, and a client id the store cannot read is refused on a page", async () => {
    // A real client on a port nothing listens on: every command fails at once.
    const down = new Redis({
      host: "127.0.0.1",
      port: 1,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    down.on("error", () => {});
    const app = await makeApp({
      store: RedisAuthorizationStore(down, { prefix: "latchkey-authz-down:" }),
      dynamicRegistration: { scopes: ["openid", "reports:read"] },
    });
    const registration = await app.server.fetch(
      new Request("http://localhost:3000/oauth/register", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          redirect_uris: ["https://reports.example/callback"],
          token_endpoint_auth_method: "none",
        }),
      }),
    );
    expect(registration?.status).toBe(503);
    expect(await registration?.json()).toMatchObject({ error: "temporarily_unavailable" });
    expect(app.logged.errors.length).toBeGreaterThan(0);
    const page = await send(app, "/oauth/authorize?client_id=abc&response_type=code");
    expect(page.status).toBe(503);
    expect(await page.text()).not.toMatch(/ECONNREFUSED|Redis|stack/i);
    down.disconnect();
  });
});
