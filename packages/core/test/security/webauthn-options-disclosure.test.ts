/**
 * WebAuthn authentication options reveal nothing about an address: the credential IDs of a named
 * user are not listed (discoverable credentials), so the answer for an address with an account and
 * for one without are the same but for the fresh challenge. Through `Auth(new Request(...))`.
 */
import { describe, expect, it } from "vitest";
import Passkey from "../../src/providers/passkey.js";
import { defaultGetUserInfo } from "../../src/providers/webauthn.js";
import { SoftAuthenticator } from "../webauthn/soft-authenticator.js";
import {
  CHALLENGE_COOKIE,
  CookieJar,
  getOptions,
  ORIGIN,
  postCredential,
  sessionOf,
  setup,
} from "../webauthn/support.js";

/** What an observer learns from an options answer, with the challenge (random by design) masked. */
function observable(answer: Awaited<ReturnType<typeof getOptions>>) {
  const { challenge, ...options } = answer.body.options;
  expect(typeof challenge).toBe("string");
  return {
    status: answer.status,
    action: answer.body.action,
    options,
    // Cookie names and attributes; the sealed values differ with the challenge.
    cookies: answer.setCookie.map((c) => c.replace(/^([^=]+)=[^;]*/, "$1=<sealed>")),
  };
}

describe("WebAuthn authentication options reveal nothing about an address", () => {
  it("the options for an existing and an unknown address are indistinguishable, 40 requests at once, odd spellings included", async () => {
    let lookups = 0;
    const ctx = setup({
      providers: [
        Passkey({
          getUserInfo: (options, request) => {
            lookups++;
            return defaultGetUserInfo(options, request);
          },
        }),
      ],
    });
    const device = new SoftAuthenticator(ORIGIN);
    const registering = await getOptions(ctx.config, new CookieJar(), { email: "ada@example.com" });
    expect(registering.body.action).toBe("register");
    const signup = new CookieJar();
    const fresh = await getOptions(ctx.config, signup, { email: "ada@example.com" });
    await postCredential(ctx.config, signup, "register", await device.create(fresh.body.options as never));
    expect((await sessionOf(ctx.config, signup))?.user?.email).toBe("ada@example.com");
    lookups = 0;

    const asked = [
      "ada@example.com",
      "ADA@Example.COM",
      " ada@example.com ",
      "nobody@example.com",
      "n\u00f8body@example.com",
      "ada@example.com\u0000",
      "",
    ];
    const requests = Array.from({ length: 40 }, (_, i) => asked[i % asked.length] as string);
    const answers = await Promise.all(
      requests.map((email) => getOptions(ctx.config, new CookieJar(), { email, action: "authenticate" })),
    );
    const reference = observable(answers[0] as (typeof answers)[0]);
    expect(reference.status).toBe(200);
    expect(reference.action).toBe("authenticate");
    expect(reference.options.allowCredentials ?? []).toEqual([]);
    expect(reference.cookies.some((c) => c.startsWith(`${CHALLENGE_COOKIE}=`))).toBe(true);
    for (const answer of answers) expect(observable(answer)).toEqual(reference);
    // No user is even looked up, so the answer's timing cannot tell the addresses apart either.
    expect(lookups).toBe(0);
    // Every challenge is fresh.
    expect(new Set(answers.map((a) => a.body.options.challenge)).size).toBe(answers.length);
  });

  it("a discoverable passkey still signs its user in from options that name nobody", async () => {
    const ctx = setup();
    const device = new SoftAuthenticator(ORIGIN);
    const signup = new CookieJar();
    const fresh = await getOptions(ctx.config, signup, { email: "ada@example.com" });
    await postCredential(ctx.config, signup, "register", await device.create(fresh.body.options as never));

    const jar = new CookieJar();
    const { body } = await getOptions(ctx.config, jar, { email: "nobody@example.com", action: "authenticate" });
    const response = await postCredential(ctx.config, jar, "authenticate", await device.get(body.options as never));
    expect(response.status).toBe(302);
    expect((await sessionOf(ctx.config, jar))?.user?.email).toBe("ada@example.com");
  });
});
