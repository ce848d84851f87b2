import { describe, expect, expectTypeOf, it } from "vitest";
import type { AuthConfig } from "../../src/index.js";
import Credentials from "../../src/providers/credentials.js";
import GitHub from "../../src/providers/github.js";
import Google from "../../src/providers/google.js";

describe("provider factories fit AuthConfig.providers", () => {
  it("accepts typed factories, their results and credentials in one list", () => {
    const config: AuthConfig = {
      providers: [
        GitHub,
        GitHub({ clientId: "a" }),
        Google({ clientId: "b" }),
        Credentials({ credentials: { u: {} }, authorize: () => null }),
      ],
    };
    expectTypeOf(config.providers).toBeArray();
    expect(config.providers).toHaveLength(4);
  });
});
