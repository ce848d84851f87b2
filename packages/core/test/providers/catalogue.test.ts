/**
 * Every built-in OAuth/OIDC provider module, found by listing src/providers, is checked from one
 * table (samples.ts): the factory's defaults, that caller options win after applyProviderOptions,
 * and that profile() maps a realistic profile to the expected user.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { merge } from "../../src/lib/base/merge.js";
import { applyProviderOptions } from "../../src/lib/config/provider-options.js";
import type { OAuthConfig } from "../../src/providers/oauth.js";
import type { User } from "../../src/types.js";
import { samples } from "./samples.js";

/** Modules of src/providers that are not provider factories (types, the provider list). */
const NOT_CATALOGUE = new Set(["index", "oauth"]);

type Factory = (options?: Record<string, unknown>) => OAuthConfig;

const dir = new URL("../../src/providers/", import.meta.url);
const ids = readdirSync(dir)
  .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
  .map((file) => file.slice(0, -3))
  .filter((id) => !NOT_CATALOGUE.has(id))
  // OAuth and OIDC providers only: e-mail, credentials and WebAuthn providers have their own tests.
  .filter((id) => /\btype: "(?:oauth|oidc)"/.test(readFileSync(new URL(`${id}.ts`, dir), "utf8")))
  .sort();

const factories = new Map<string, Factory>();
for (const id of ids) {
  const file = fileURLToPath(new URL(`${id}.ts`, dir));
  const module = (await import(/* @vite-ignore */ file)) as { default: Factory };
  factories.set(id, module.default);
}

const credentials = { clientId: "client-id", clientSecret: "client-secret" };

function endpointUrl(endpoint: unknown): string | undefined {
  if (typeof endpoint === "string") return endpoint;
  if (endpoint && typeof endpoint === "object" && "url" in endpoint) return (endpoint as { url?: string }).url;
  return undefined;
}

function expectHttps(url: string | undefined, what: string): void {
  expect(url, what).toBeTypeOf("string");
  expect(new URL(url as string).protocol, what).toBe("https:");
}

function build(id: string, options: Record<string, unknown> = {}): OAuthConfig {
  const factory = factories.get(id)!;
  // Deep-merged, so that a generic factory keeps its endpoints when a test adds a parameter.
  return applyProviderOptions(factory(merge(samples[id]!.options ?? {}, options)) as never) as OAuthConfig;
}

describe("provider catalogue", () => {
  it("has at least 40 providers besides the generic factories", () => {
    expect(ids.filter((id) => !id.startsWith("generic-")).length).toBeGreaterThanOrEqual(40);
  });

  it("has a sample row for every provider module, and no row without a module", () => {
    expect(Object.keys(samples).sort()).toEqual(ids);
  });
});

describe.each(ids)("%s", (id) => {
  const sample = samples[id]!;
  const expectedId = (sample.options?.id as string | undefined) ?? sample.id ?? id;

  it("returns a valid configuration", () => {
    const config = build(id, credentials);
    expect(config.id).toBe(expectedId);
    expect(config.name).toBeTypeOf("string");
    expect(config.name.length).toBeGreaterThan(0);
    expect(["oauth", "oidc"]).toContain(config.type);
    if (config.issuer !== undefined) {
      expectHttps(config.issuer, "issuer");
    } else {
      expectHttps(endpointUrl(config.authorization), "authorization");
      expectHttps(endpointUrl(config.token), "token");
    }
    if (config.type === "oauth" && config.issuer === undefined) {
      expectHttps(endpointUrl(config.userinfo), "userinfo");
    }
    expect(config.profile).toBeTypeOf("function");
    for (const key of ["brandColor", "bg", "text"] as const) {
      expect(config.style?.[key], `style.${key}`).toMatch(/^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i);
    }
    expect(config.clientId).toBe("client-id");
    expect(config.clientSecret).toBe("client-secret");
    expect("options" in config).toBe(false);
  });

  it("can be called without options (providers: [X])", () => {
    if (id.startsWith("generic-")) {
      expect(() => factories.get(id)!()).toThrow(TypeError);
    } else {
      expect(() => applyProviderOptions(factories.get(id)! as never)).not.toThrow();
    }
  });

  it("lets the caller's options win", async () => {
    const defaults = build(id);
    const custom = (): User => ({ id: "custom", name: "Custom", email: null, image: null });
    const config = build(id, {
      clientId: "override-id",
      authorization: { params: { scope: "custom:scope" } },
      profile: custom,
      style: { brandColor: "#123456" },
    });
    expect(config.clientId).toBe("override-id");
    const authorization = config.authorization as { url?: string; params?: Record<string, unknown> };
    expect(authorization.params?.scope).toBe("custom:scope");
    // The override is merged into the defaults, not put in their place.
    expect(endpointUrl(authorization)).toBe(endpointUrl(defaults.authorization));
    const defaultParams = (defaults.authorization as { params?: Record<string, unknown> } | undefined)?.params ?? {};
    for (const [key, value] of Object.entries(defaultParams)) {
      if (key !== "scope" && value !== undefined) expect(authorization.params?.[key]).toEqual(value);
    }
    expect(config.style?.brandColor).toBe("#123456");
    expect(config.style?.bg).toBe(defaults.style?.bg);
    expect(config.profile).toBe(custom);
    expect(await config.profile!(sample.profile as never, {})).toEqual(custom());
  });

  it("maps a realistic profile to a user", async () => {
    const config = build(id, credentials);
    const user = await config.profile!(sample.profile as never, (sample.tokens ?? {}) as never);
    expect(user.id).toBeTypeOf("string");
    expect(user).toEqual(sample.user);
  });
});
