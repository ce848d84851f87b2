import { describe, expect, it } from "vitest";
import type { AuthConfig } from "../../src/index.js";
import { resolveConfig } from "../../src/lib/config/resolve.js";
import { MemoryAdapter } from "../../src/memory-adapter.js";
import Passkey from "../../src/providers/passkey.js";
import WebAuthn from "../../src/providers/webauthn.js";
import { call, makeConfig, recordingLogger } from "../helpers.js";
import { setup } from "./support.js";

function resolutionError(config: AuthConfig): { type?: string; message: string } {
  try {
    resolveConfig(config);
  } catch (e) {
    return e as { type?: string; message: string };
  }
  throw new Error("the configuration was accepted");
}

describe("WebAuthn configuration", () => {
  it("needs the experimental flag", () => {
    const e = resolutionError(makeConfig({ adapter: MemoryAdapter(), providers: [Passkey()] }));
    expect(e.type).toBe("ExperimentalFeatureNotEnabled");
    expect(e.message).toContain("enableWebAuthn");
  });

  it("warns when the flag is on and accepts Passkey and WebAuthn providers", () => {
    const { config, log } = setup({ providers: [Passkey(), WebAuthn({ enableConditionalUI: false })] });
    const resolved = resolveConfig(config);
    expect(resolved.providers.map((p) => [p.id, p.type])).toEqual([
      ["passkey", "webauthn"],
      ["webauthn", "webauthn"],
    ]);
    expect(log.warnings).toContain("experimental-webauthn");
  });

  it("needs an adapter, with the authenticator methods", () => {
    const noAdapter = resolutionError(makeConfig({ experimental: { enableWebAuthn: true }, providers: [Passkey()] }));
    expect(noAdapter.type).toBe("MissingAdapter");
    const { getAuthenticator: _g, updateAuthenticatorCounter: _u, ...partial } = MemoryAdapter();
    const e = resolutionError(
      makeConfig({ adapter: partial, experimental: { enableWebAuthn: true }, providers: [Passkey()] }),
    );
    expect(e.type).toBe("MissingAdapterMethods");
    expect(e.message).toContain("getAuthenticator");
    expect(e.message).toContain("updateAuthenticatorCounter");
  });

  it("allows one provider with conditional UI, which needs a webauthn autocomplete field", () => {
    const base = { adapter: MemoryAdapter(), experimental: { enableWebAuthn: true }, logger: recordingLogger().logger };
    expect(resolutionError(makeConfig({ ...base, providers: [Passkey(), WebAuthn()] })).type).toBe(
      "DuplicateConditionalUI",
    );
    const noAutofill = Passkey({ formFields: { email: { label: "Email", autocomplete: "email" } } });
    expect(resolutionError(makeConfig({ ...base, providers: [noAutofill] })).type).toBe("MissingWebAuthnAutocomplete");
    expect(() =>
      resolveConfig(makeConfig({ ...base, providers: [Passkey({ enableConditionalUI: false, formFields: {} })] })),
    ).not.toThrow();
  });

  it("rejects relying-party values that are not strings, and accepts Auth.js's relayingParty spelling", () => {
    const base = { adapter: MemoryAdapter(), experimental: { enableWebAuthn: true }, logger: recordingLogger().logger };
    const bad = resolutionError(makeConfig({ ...base, providers: [Passkey({ relyingParty: { id: 42 as never } })] }));
    expect(bad.type).toBe("InvalidConfiguration");
    expect(bad.message).toContain("relyingParty.id");
    const resolved = resolveConfig(
      makeConfig({ ...base, providers: [Passkey({ relayingParty: { id: "example.com" } })] }),
    );
    expect(resolved.providers[0]).toMatchObject({ relyingParty: { id: ["example.com"], name: [], origin: [] } });
  });

  it("merges caller options over the Passkey defaults", () => {
    const resolved = resolveConfig(
      setup({ providers: [Passkey({ id: "pk", authenticationOptions: { timeout: 1000 } })] }).config,
    );
    expect(resolved.providers[0]).toMatchObject({
      id: "pk",
      name: "Passkey",
      authenticationOptions: { timeout: 1000, userVerification: "required" },
      verifyAuthenticationOptions: { requireUserVerification: true },
    });
  });
});

describe("sign-in page and script", () => {
  it("has a passkey form with an autofill field, driven by a script from Latchkey's own origin", async () => {
    const { config } = setup();
    const response = await call(config, "/auth/signin");
    const page = await response.text();
    expect(page).toContain('action="http://localhost:3000/auth/callback/passkey"');
    expect(page).toContain('data-webauthn-options="http://localhost:3000/auth/webauthn-options/passkey"');
    expect(page).toContain("data-webauthn-conditional");
    expect(page).toMatch(
      /<input name="email" id="input-email-for-passkey-provider" type="email"[^>]* autocomplete="username webauthn"/,
    );
    expect(page).toContain('<script src="http://localhost:3000/auth/webauthn-script.js" defer></script>');
    expect(page).toContain("Sign in with Passkey");
    expect(page).not.toMatch(/<script>(?!<\/script>)/);
    expect(response.headers.get("content-security-policy")).toContain("script-src 'self'");
  });

  it("serves the script as JavaScript, and 404 without a WebAuthn provider", async () => {
    const { config } = setup();
    const response = await call(config, "/auth/webauthn-script.js");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/javascript/);
    const script = await response.text();
    expect(script).toContain("navigator.credentials.create");
    expect(script).toContain('mediation: "conditional"');
    // It must parse as JavaScript.
    expect(() => new Function(script)).not.toThrow();
    expect((await call(makeConfig(), "/auth/webauthn-script.js")).status).toBe(404);
  });

  it("shows the WebAuthn error values", async () => {
    const { config } = setup();
    const page = await (await call(config, "/auth/signin?error=WebAuthnVerificationError")).text();
    expect(page).toContain("The passkey could not be verified");
  });
});
