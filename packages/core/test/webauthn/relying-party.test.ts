/**
 * `getRelayingParty` on the providers `WebAuthn()` and `Passkey()` make, with Auth.js's semantics
 * (its WebAuthn provider carries a default one that applications and tests call): the first
 * configured value of each field, else the auth URL's host name, host and origin. Left as it is,
 * the flow still verifies every configured id and origin (flow.test.ts: "accepts every configured
 * origin and RP ID, and creates options with the first").
 */
import { describe, expect, it } from "vitest";
import Passkey from "../../src/providers/passkey.js";
import WebAuthn, {
  defaultGetRelayingParty,
  type GetRelayingParty,
  type RelyingPartyRequest,
} from "../../src/providers/webauthn.js";

const url = new URL("https://app.example:8443/api/auth");
const request: RelyingPartyRequest = {
  method: "GET",
  url: new URL("https://app.example:8443/api/auth/webauthn-options/passkey"),
  query: {},
  headers: new Headers(),
};

describe("getRelayingParty of WebAuthn() and Passkey()", () => {
  it("is carried by both factories' providers, as Auth.js's providers carry theirs", () => {
    expect(typeof Passkey().getRelayingParty).toBe("function");
    expect(typeof WebAuthn().getRelayingParty).toBe("function");
  });

  it("answers the auth URL's host name, host and origin when nothing is configured", () => {
    const provider = Passkey();
    expect(provider.getRelayingParty({ provider, url }, request)).toEqual({
      id: "app.example",
      name: "app.example:8443",
      origin: "https://app.example:8443",
    });
  });

  it("answers the first configured value of each field, in either spelling, and the URL's for the rest", () => {
    const authjs = Passkey({ relayingParty: { id: ["new.example", "old.example"], name: "Example" } });
    expect(authjs.getRelayingParty({ provider: authjs, url }, request)).toEqual({
      id: "new.example",
      name: "Example",
      origin: "https://app.example:8443",
    });
    const latchkey = WebAuthn({ relyingParty: { origin: ["https://new.example", "https://old.example"] } });
    expect(latchkey.getRelayingParty({ provider: latchkey, url }, request)).toEqual({
      id: "app.example",
      name: "app.example:8443",
      origin: "https://new.example",
    });
  });

  it("accepts custom getRelayingParty function: WebAuthn() and Passkey() carry the given one as their own", () => {
    // Auth.js's test of the same name (webauthn-utils.test.ts), for both factories.
    const custom: GetRelayingParty = (options, req) => {
      const id = options.provider.relayingParty?.id as string;
      return { id, name: req.url.host, origin: req.url.origin };
    };
    const relayingParty = { id: "my-id", origin: "https://custom.com" };
    for (const factory of [WebAuthn, Passkey]) {
      const provider = factory({ relayingParty, getRelayingParty: custom });
      expect(provider.getRelayingParty, factory.name).toBe(custom);
      const answer = provider.getRelayingParty(
        { provider: { relayingParty }, url },
        { ...request, url: new URL("https://myapp.com") },
      );
      expect(answer, factory.name).toEqual({ id: "my-id", name: "myapp.com", origin: "https://myapp.com" });
    }
    // Without one, each carries the default.
    expect(WebAuthn({ relayingParty }).getRelayingParty).toBe(defaultGetRelayingParty);
    expect(Passkey({ relayingParty }).getRelayingParty).toBe(defaultGetRelayingParty);
  });

  it("answers the first of each list, and the URL's where a list is empty", () => {
    const resolved = { relyingParty: { id: [], name: ["Example"], origin: ["https://app.example"] } };
    expect(defaultGetRelayingParty({ provider: resolved as never, url }, request)).toEqual({
      id: "app.example",
      name: "Example",
      origin: "https://app.example",
    });
  });
});
