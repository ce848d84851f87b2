import { describe, expect, it } from "vitest";
import { Auth, type AuthConfig, createActionURL, setEnvDefaults } from "../src/index.js";
import { warnUnknownOptions } from "../src/lib/config/advice.js";
import { resolveConfig } from "../src/lib/config/resolve.js";
import { demoCredentials, makeConfig, recordingLogger, SECRET } from "./helpers.js";

function resolutionError(config: AuthConfig): Error {
  try {
    resolveConfig(config);
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected the configuration to be refused");
}

describe("configuration errors name the option and the fix", () => {
  it("no secret", () => {
    const e = resolutionError({ providers: [] });
    expect(e).toMatchObject({ type: "MissingSecret" });
    expect(e.message).toMatch(/AUTH_SECRET/);
  });
  it("a secret shorter than 32 characters, alone or in an array", () => {
    expect(resolutionError({ providers: [], secret: "short" }).message).toMatch(
      /`secret` must be at least 32 characters/,
    );
    expect(resolutionError({ providers: [], secret: [SECRET, "short"] }).message).toMatch(/`secret\[1\]`/);
  });
  it("credentials with the database strategy", () => {
    const e = resolutionError(makeConfig({ session: { strategy: "database" }, adapter: {} }));
    expect(e.message).toMatch(/strategy/);
    const e2 = resolutionError(makeConfig({ adapter: { createSession: () => ({}) as never } }));
    expect(e2).toMatchObject({ type: "UnsupportedStrategy" });
  });
  it("an unknown provider type", () => {
    const e = resolutionError(makeConfig({ providers: [{ id: "x", name: "X", type: "saml" } as never] }));
    expect(e).toMatchObject({ type: "InvalidProvider" });
    expect(e.message).toMatch(/"saml"/);
  });
  it("a WebAuthn provider without the experimental flag", () => {
    expect(
      resolutionError(makeConfig({ providers: [{ id: "passkey", name: "Passkey", type: "webauthn" } as never] })),
    ).toMatchObject({
      type: "ExperimentalFeatureNotEnabled",
    });
  });
  it("a malformed basePath", () => {
    for (const basePath of ["auth", "/auth?x=1", "/a//b", "/auth#x", "/a/../b", "/a b"]) {
      expect(resolutionError(makeConfig({ basePath })).message).toMatch(/basePath/);
    }
    expect(resolveConfig(makeConfig({ basePath: "/api/auth/" })).basePath).toBe("/api/auth");
  });
  it("a credentials provider without authorize, and duplicate ids", () => {
    expect(
      resolutionError(
        makeConfig({ providers: [{ id: "c", name: "C", type: "credentials", credentials: {} } as never] }),
      ),
    ).toMatchObject({
      type: "MissingAuthorize",
    });
    expect(resolutionError(makeConfig({ providers: [demoCredentials(), demoCredentials()] })).message).toMatch(
      /Two providers/,
    );
  });
  it("the database strategy without an adapter", () => {
    expect(resolutionError(makeConfig({ providers: [], session: { strategy: "database" } }))).toMatchObject({
      type: "MissingAdapter",
    });
  });
  it("a bad session.maxAge", () => {
    expect(resolutionError(makeConfig({ session: { maxAge: -1 } })).message).toMatch(/session\.maxAge/);
  });
});

describe("configuration is resolved once and never mutated", () => {
  it("returns the same frozen resolution for the same object", () => {
    const config = makeConfig();
    const a = resolveConfig(config);
    expect(resolveConfig(config)).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
  });
  it("does not touch the caller's object", async () => {
    const config = makeConfig({ theme: { colorScheme: "dark" } });
    const before = JSON.stringify(config);
    const keys = Object.keys(config).sort();
    await Auth(new Request("http://localhost:3000/auth/session"), config);
    await Auth(new Request("http://localhost:3000/auth/signin"), config);
    expect(JSON.stringify(config)).toBe(before);
    expect(Object.keys(config).sort()).toEqual(keys);
  });
  it("resolves again when the secret array is changed in place (rotation at run time)", () => {
    const secrets = [SECRET];
    const config = makeConfig({ secret: secrets });
    const a = resolveConfig(config);
    secrets.unshift("a-brand-new-secret-0123456789abcdefghij");
    const b = resolveConfig(config);
    expect(b).not.toBe(a);
    expect(b.secrets[0]).toBe("a-brand-new-secret-0123456789abcdefghij");
  });
  it("a configuration error answers 500 JSON for API actions and the error page for pages, logging the cause", async () => {
    const { logger, errors } = recordingLogger();
    const config = { providers: [], logger } as AuthConfig;
    const api = await Auth(new Request("http://localhost:3000/auth/session"), config);
    expect(api.status).toBe(500);
    expect(await api.json()).toEqual({ message: expect.stringMatching(/server configuration/) });
    const pageResponse = await Auth(new Request("http://localhost:3000/auth/signin"), config);
    expect(pageResponse.status).toBe(500);
    expect(await pageResponse.text()).toMatch(/Server error/);
    expect(errors.map((e) => (e as { type?: string }).type)).toEqual(["MissingSecret", "MissingSecret"]);
  });
  it("is frozen all the way down: changing a nested value of the resolution is refused and changes nothing", () => {
    const config = makeConfig({ session: { maxAge: 3600 } });
    const resolved = resolveConfig(config);
    expect(() => {
      (resolved.session as { maxAge: number }).maxAge = 1;
    }).toThrow(TypeError);
    expect(() => {
      (resolved.cookies.https.sessionToken.options as { httpOnly: boolean }).httpOnly = false;
    }).toThrow(TypeError);
    expect(() => {
      (resolved.providers as unknown[]).push({});
    }).toThrow(TypeError);
    expect(() => {
      (resolved.providers[0] as { id: string }).id = "other";
    }).toThrow(TypeError);
    expect(resolveConfig(config).session.maxAge).toBe(3600);
    // ... while the application's own objects stay as they were: never frozen by us
    expect(Object.isFrozen(config.session)).toBe(false);
    expect(Object.isFrozen(config.providers[0])).toBe(false);
  });
  it("resolves again when the secret or jwt.secret is reassigned, not only changed in place", () => {
    const config = makeConfig({ secret: SECRET, jwt: { secret: SECRET } });
    const a = resolveConfig(config);
    config.secret = "another-secret-0123456789abcdefghijklm";
    const b = resolveConfig(config);
    expect(b).not.toBe(a);
    (config.jwt as { secret: string }).secret = "a-third-secret-0123456789abcdefghijklm";
    const c = resolveConfig(config);
    expect(c).not.toBe(b);
    expect(c.jwt.secrets).toEqual(["a-third-secret-0123456789abcdefghijklm"]);
  });
  it("reads the environment once: AUTH_URL changed afterwards does not move the origin", async () => {
    const config = makeConfig();
    const env: Record<string, string> = { AUTH_URL: "https://app.example/auth" };
    const resolved = resolveConfig(config, env);
    env.AUTH_URL = "https://evil.example/auth";
    expect(resolveConfig(config, env)).toBe(resolved);
    expect(resolved.url?.origin).toBe("https://app.example");
  });
  it("a helper resolving without an environment uses the resolution a framework made with one (same providers and secrets)", () => {
    const config: AuthConfig = { providers: [] };
    const withEnv = resolveConfig(config, { AUTH_SECRET: SECRET });
    expect(resolveConfig(config)).toBe(withEnv);
    expect(resolveConfig(config).secrets).toEqual([SECRET]);
  });
  it("a misspelled top-level option is warned about, naming the closest known option", () => {
    const details: string[] = [];
    const logger = {
      error() {},
      debug() {},
      warn: (code: string, detail?: string) => void details.push(`${code}: ${detail}`),
    };
    resolveConfig({ ...makeConfig({ logger }), sesion: { maxAge: 1 } } as AuthConfig);
    expect(details).toContain(
      "unknown-option: `sesion` is not a Latchkey option and is ignored; did you mean `session`?",
    );
  });
  it("no option of AuthConfig is warned about as unknown (the list is typed: an option added to AuthConfig must be named here)", () => {
    const every: Record<keyof AuthConfig, true> = {
      providers: true,
      secret: true,
      session: true,
      jwt: true,
      pages: true,
      theme: true,
      callbacks: true,
      events: true,
      adapter: true,
      debug: true,
      logger: true,
      useSecureCookies: true,
      cookies: true,
      trustHost: true,
      trustedOrigins: true,
      trustProxy: true,
      skipCSRFCheck: true,
      raw: true,
      basePath: true,
      redirectProxyUrl: true,
      experimental: true,
      adapterTimeout: true,
      rateLimit: true,
      audit: true,
      clientAddress: true,
      accessTokens: true,
      organizations: true,
      admin: true,
    };
    const warned: string[] = [];
    const logger = {
      error() {},
      debug() {},
      warn: (code: string, detail?: string) => void warned.push(`${code}: ${detail}`),
    };
    warnUnknownOptions(every as unknown as AuthConfig, logger);
    expect(warned).toEqual([]);
  });
  it("a callback or event that is not a function is refused when the configuration is resolved", () => {
    const bad = resolutionError(makeConfig({ callbacks: { jwt: "token" as never } }));
    expect(bad).toMatchObject({ type: "InvalidConfiguration" });
    expect(bad.message).toMatch(/`callbacks.jwt` must be a function/);
    expect(resolutionError(makeConfig({ events: { signIn: {} as never } })).message).toMatch(
      /`events.signIn` must be a function/,
    );
  });
  it("refuses untrusted hosts unless trustHost is set", async () => {
    const { logger, errors } = recordingLogger();
    const response = await Auth(
      new Request("http://evil.example/auth/session"),
      makeConfig({ trustHost: false, logger }),
    );
    expect(response.status).toBe(500);
    expect(errors[0]).toMatchObject({ type: "UntrustedHost" });
  });
});

describe("host trust in the core: loopback names are trusted, other hosts only when configured", () => {
  it("answers localhost, 127.0.0.1 and [::1] without trustHost, refuses any other host", async () => {
    for (const origin of ["http://localhost:3000", "http://127.0.0.1:8080", "http://[::1]:3000"]) {
      const response = await Auth(new Request(`${origin}/auth/csrf`), makeConfig({ trustHost: undefined }));
      expect(response.status).toBe(200);
    }
    for (const origin of [
      "http://login.evil.example",
      "http://localhost.evil.example",
      "http://127.0.0.1.evil.example",
    ]) {
      const { logger, errors } = recordingLogger();
      const response = await Auth(new Request(`${origin}/auth/csrf`), makeConfig({ trustHost: undefined, logger }));
      expect(response.status).toBe(500);
      expect(response.headers.getSetCookie()).toEqual([]);
      expect(errors[0]).toMatchObject({ type: "UntrustedHost" });
    }
  });
});

describe("setEnvDefaults", () => {
  it("reads AUTH_SECRET (and rotated secrets first), AUTH_URL's path, AUTH_TRUST_HOST and AUTH_REDIRECT_PROXY_URL", () => {
    const config: AuthConfig = { providers: [] };
    setEnvDefaults(
      {
        AUTH_SECRET: SECRET,
        AUTH_SECRET_1: "rotated-secret-0123456789abcdefghijklm",
        AUTH_URL: "https://app.example/api/auth",
        AUTH_TRUST_HOST: "false",
        AUTH_REDIRECT_PROXY_URL: "https://proxy.example/api/auth",
        NODE_ENV: "development",
      },
      config,
    );
    expect(config.secret).toEqual(["rotated-secret-0123456789abcdefghijklm", SECRET]);
    expect(config.basePath).toBe("/api/auth");
    expect(config.trustHost).toBe(false);
    expect(config.redirectProxyUrl).toBe("https://proxy.example/api/auth");
  });
  it("keeps what the configuration already says, and trusts the host when AUTH_URL is set", () => {
    const config: AuthConfig = { providers: [], secret: "kept-secret-0123456789abcdefghijklmnop", basePath: "/auth" };
    setEnvDefaults({ AUTH_SECRET: "x", AUTH_URL: "https://app.example", NODE_ENV: "production" }, config, true);
    expect(config.secret).toBe("kept-secret-0123456789abcdefghijklmnop");
    expect(config.basePath).toBe("/auth");
    expect(config.trustHost).toBe(true);
  });
  it("does not trust the host without AUTH_URL or AUTH_TRUST_HOST, whatever NODE_ENV says", () => {
    for (const env of [{ NODE_ENV: "production" }, { NODE_ENV: "development" }, {}]) {
      const config: AuthConfig = { providers: [] };
      setEnvDefaults(env, config);
      expect(config.trustHost).toBe(false);
      expect(config.basePath).toBe("/auth");
    }
  });
  it("makes the secret an array, as Auth.js does: config.secret[0] is the secret, not its first character", () => {
    const config: AuthConfig = { providers: [] };
    setEnvDefaults({ AUTH_SECRET: SECRET }, config);
    expect(config.secret).toEqual([SECRET]);
    expect((config.secret as string[])[0]).toBe(SECRET);
  });
  it("fills AUTH_<PROVIDER>_ID, _SECRET and _ISSUER into providers that lack them", () => {
    const oidc = (options: Record<string, unknown> = {}) => ({
      id: "my-idp",
      name: "IdP",
      type: "oidc" as const,
      options,
    });
    const config: AuthConfig = { providers: [oidc(), oidc({ clientId: "explicit" })] };
    setEnvDefaults(
      { AUTH_MY_IDP_ID: "env-id", AUTH_MY_IDP_SECRET: "env-secret", AUTH_MY_IDP_ISSUER: "https://idp.example" },
      config,
    );
    const [first, second] = config.providers as Array<{ options: Record<string, unknown> }>;
    expect(first?.options).toEqual({ clientId: "env-id", clientSecret: "env-secret", issuer: "https://idp.example" });
    expect(second?.options.clientId).toBe("explicit");
  });
});

describe("setEnvDefaults with provider factories", () => {
  it("calls a bare factory with the environment's values, so derived defaults use them", async () => {
    const { default: TikTok } = await import("../src/providers/tiktok.js");
    const config: AuthConfig = { providers: [TikTok] };
    setEnvDefaults({ AUTH_TIKTOK_ID: "client-key-from-env", AUTH_TIKTOK_SECRET: "s" }, config);
    const provider = config.providers[0] as {
      clientId?: string;
      options?: { clientId?: string };
      authorization?: { params?: Record<string, unknown> };
    };
    expect(provider.options?.clientId ?? provider.clientId).toBe("client-key-from-env");
    expect(provider.authorization?.params?.client_key).toBe("client-key-from-env");
  });
});

describe("createActionURL", () => {
  const headers = new Headers({ host: "request.example" });
  it("uses the path of AUTH_URL when basePath is unset, as Auth.js does", () => {
    const url = createActionURL("signout", "https", headers, { AUTH_URL: "https://app.example/api/auth" }, {});
    expect(url.href).toBe("https://app.example/api/auth/signout");
  });
  it("lets an explicit basePath win over AUTH_URL's path, and uses the request's host without AUTH_URL", () => {
    const warned: string[] = [];
    const logger = { warn: (code: string) => void warned.push(code), error() {}, debug() {} };
    const env = { AUTH_URL: "https://app.example/api/auth" };
    expect(createActionURL("signin", "https", headers, env, { basePath: "/auth", logger }).href).toBe(
      "https://app.example/auth/signin",
    );
    expect(warned).toEqual(["env-url-basepath-mismatch"]);
    expect(createActionURL("session", "http", headers, {}, { basePath: "/auth" }).href).toBe(
      "http://request.example/auth/session",
    );
    expect(createActionURL("csrf", "https", headers, { AUTH_URL: "https://app.example" }, {}).href).toBe(
      "https://app.example/csrf",
    );
  });
  it("reads X-Forwarded-Host and X-Forwarded-Proto only behind a proxy the environment names (AUTH_TRUST_PROXY), the last entry", () => {
    const forwarded = new Headers({
      host: "10.0.0.5:3000",
      "x-forwarded-host": "evil.example, app.example",
      "x-forwarded-proto": "https",
    });
    expect(createActionURL("signin", "http", forwarded, {}, { basePath: "/auth" }).href).toBe(
      "http://10.0.0.5:3000/auth/signin",
    );
    expect(createActionURL("signin", "http", forwarded, { AUTH_TRUST_PROXY: "1" }, { basePath: "/auth" }).href).toBe(
      "https://app.example/auth/signin",
    );
  });
});
