/**
 * `requireApiKey(keys, { scopes })` of `@latchkey/express` over a real socket: the principal on
 * `res.locals.apiKey` for a valid key, core's refusal written as is for the others.
 */
import { randomBytes } from "node:crypto";
import { ApiKeys, MemoryApiKeyStore } from "@latchkey/core/api-keys";
import { requireApiKey } from "@latchkey/express";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen } from "./helpers.js";

describe("requireApiKey (Express)", () => {
  const keys = ApiKeys(
    { secret: randomBytes(32).toString("base64url"), trustHost: true, providers: [] },
    { store: MemoryApiKeyStore(), userScopes: ["reports:read"] },
  );
  let server: { url: string; close: () => Promise<void> };
  let key: string;
  beforeAll(async () => {
    const made = await keys.create("ursula", { name: "CI", scopes: ["reports:read"] });
    if (!made.ok) throw new Error(made.reason);
    key = made.value.key;
    const app = express();
    app.get("/reports", requireApiKey(keys, { scopes: ["reports:read"] }), (_req, res) => {
      res.json({ owner: res.locals.apiKey?.owner });
    });
    app.get("/admin", requireApiKey(keys, { scopes: ["reports:write"] }), (_req, res) => {
      res.json({ reached: true });
    });
    server = await listen(app);
  });
  afterAll(async () => {
    await server?.close();
  });

  it("lets a valid key through with its principal on res.locals.apiKey", async () => {
    const response = await fetch(`${server.url}/reports`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ owner: { type: "user", id: "ursula" } });
  });

  it("writes core's refusals: 401 without a key or with a forged one, 403 for a missing scope, 400 for two keys", async () => {
    const missing = await fetch(`${server.url}/reports`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toBe('Bearer realm="api"');
    const forged = await fetch(`${server.url}/reports`, { headers: { "x-api-key": `${key.slice(0, -1)}x` } });
    expect(forged.status).toBe(401);
    expect(await forged.json()).toEqual({ error: "invalid_token", error_description: "The API key is not valid" });
    const scope = await fetch(`${server.url}/admin`, { headers: { authorization: `Bearer ${key}` } });
    expect(scope.status).toBe(403);
    expect(scope.headers.get("cache-control")).toBe("no-store");
    const two = await fetch(`${server.url}/reports`, {
      headers: { authorization: `Bearer ${key}`, "x-api-key": "lk_other" },
    });
    expect(two.status).toBe(400);
  });
});
