import { describe, expect, expectTypeOf, it } from "vitest";
import * as errors from "../src/errors.js";
import {
  AuthError,
  CredentialsSignin,
  ErrorPageLoop,
  type ErrorType,
  MissingCSRF,
  RateLimited,
} from "../src/errors.js";
import { Auth } from "../src/index.js";
import { makeConfig, recordingLogger } from "./helpers.js";

const classes = Object.entries(errors).filter(
  (entry): entry is [string, typeof AuthError & { type?: string }] =>
    typeof entry[1] === "function" && entry[1].prototype instanceof AuthError,
);

describe("error classes", () => {
  it("every class that names a type gives its instances that type, and its own name", () => {
    const typed = classes.filter(([, ctor]) => ctor.type !== undefined);
    expect(typed.length).toBeGreaterThan(20);
    for (const [name, ctor] of typed) {
      const error = new ctor("message");
      expect(error.type, name).toBe(ctor.type);
      expect(error.type, name).toBe(name);
      expect(error.name, name).toBe(name);
    }
  });

  it("instanceof narrows `type` to the class's literal", () => {
    const caught: unknown = new CredentialsSignin();
    if (caught instanceof CredentialsSignin) expectTypeOf(caught.type).toEqualTypeOf<"CredentialsSignin">();
    if (caught instanceof RateLimited) expectTypeOf(caught.type).toEqualTypeOf<"RateLimited">();
    if (caught instanceof MissingCSRF) expectTypeOf(caught.type).toEqualTypeOf<"MissingCSRF">();
    if (caught instanceof AuthError) expectTypeOf(caught.type).toEqualTypeOf<ErrorType>();
    expect((caught as AuthError).type).toBe("CredentialsSignin");
  });

  it("a subclass of an application keeps the type of the class it extends", () => {
    class Locked extends CredentialsSignin {
      override code = "locked";
    }
    const error = new Locked();
    expect(error.type).toBe("CredentialsSignin");
    expect(error.code).toBe("locked");
    expect(error.name).toBe("Locked");
  });
});

describe("ErrorPageLoop", () => {
  const types = (errors: Error[]) => errors.map((e) => (e as AuthError).type);

  it("a configuration error coming back from pages.error shows the built-in page instead of redirecting again", async () => {
    const log = recordingLogger();
    // A secret under 32 characters: the configuration cannot be resolved at all.
    const config = makeConfig({ secret: "short", pages: { error: "/oops" }, logger: log.logger });
    const loop = await Auth(new Request("http://app.example/auth/signin?callbackUrl=%2Foops%3Fx%3D1"), config);
    expect(loop.headers.get("location")).toBeNull();
    expect(loop.headers.get("content-type")).toMatch(/text\/html/);
    expect(types(log.errors)).toEqual(["InvalidConfiguration", "ErrorPageLoop"]);
    expect(log.errors[1]).toBeInstanceOf(ErrorPageLoop);
    expect(log.errors[1]?.message).toContain("/oops");

    log.errors.length = 0;
    const elsewhere = await Auth(new Request("http://app.example/auth/signin?callbackUrl=%2Fdashboard"), config);
    expect(elsewhere.headers.get("location")).toBe("http://app.example/oops?error=Configuration");
    expect(types(log.errors)).toEqual(["InvalidConfiguration"]);
  });

  it("an absolute callbackUrl naming the error page counts too (untrusted host, resolved configuration)", async () => {
    const log = recordingLogger();
    const config = makeConfig({ trustHost: false, pages: { error: "/oops" }, logger: log.logger });
    const url = `http://app.example/auth/signin?callbackUrl=${encodeURIComponent("http://app.example/oops")}`;
    const loop = await Auth(new Request(url), config);
    expect(loop.headers.get("location")).toBeNull();
    expect(types(log.errors)).toEqual(["UntrustedHost", "ErrorPageLoop"]);

    log.errors.length = 0;
    const other = `http://app.example/auth/signin?callbackUrl=${encodeURIComponent("http://other.example/oops")}`;
    expect((await Auth(new Request(other), config)).headers.get("location")).toBe(
      "http://app.example/oops?error=Configuration",
    );
    expect(types(log.errors)).toEqual(["UntrustedHost"]);
  });
});
