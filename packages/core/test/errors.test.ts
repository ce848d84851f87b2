import { describe, expect, expectTypeOf, it } from "vitest";
import * as errors from "../src/errors.js";
import { AuthError, CredentialsSignin, type ErrorType, MissingCSRF, RateLimited } from "../src/errors.js";

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
