import { Auth as AuthJs } from "@auth/core";
import AuthJsCredentials from "@auth/core/providers/credentials";
import { describe, expect, it } from "vitest";
import { CookieJar, call, makeConfig, ORIGIN, SECRET, signIn } from "./helpers.js";

// The same application configured with Auth.js and with Latchkey: users signed in under one stay
// signed in under the other (ARCHITECTURE principle 5).
const authjsConfig = {
  // Read when each test runs: the same secret as the test's Latchkey configuration (helpers.ts).
  get secret() {
    return SECRET;
  },
  trustHost: true,
  basePath: "/auth",
  logger: { error() {}, warn() {}, debug() {} },
  providers: [
    AuthJsCredentials({
      credentials: { username: {}, password: {} },
      authorize: async (c) =>
        c.username === "ada" && c.password === "lovelace"
          ? { id: "u1", name: "Ada Lovelace", email: "ada@example.com" }
          : null,
    }),
  ],
};

async function authjsCall(path: string, jar: CookieJar, form?: Record<string, string>): Promise<Response> {
  const headers = new Headers({ cookie: jar.header() });
  if (form) headers.set("content-type", "application/x-www-form-urlencoded");
  const response = await AuthJs(
    new Request(`${ORIGIN}${path}`, {
      method: form ? "POST" : "GET",
      headers,
      body: form ? new URLSearchParams(form) : undefined,
    }),
    authjsConfig,
  );
  jar.apply(response);
  return response;
}

describe("sessions survive a switch between Auth.js and Latchkey", () => {
  it("a session made by @auth/core is read by Latchkey", async () => {
    const jar = new CookieJar();
    const { csrfToken } = (await (await authjsCall("/auth/csrf", jar)).json()) as { csrfToken: string };
    await authjsCall("/auth/callback/credentials", jar, { csrfToken, username: "ada", password: "lovelace" });
    expect(jar.get("authjs.session-token")).toBeDefined();
    const latchkeyJar = new CookieJar();
    latchkeyJar.cookies.set("authjs.session-token", jar.get("authjs.session-token") as string);
    const session = await (await call(makeConfig(), "/auth/session", { jar: latchkeyJar })).json();
    expect(session).toMatchObject({ user: { name: "Ada Lovelace", email: "ada@example.com" } });
  });

  it("a session made by Latchkey is read by @auth/core", async () => {
    const { jar } = await signIn(makeConfig());
    const session = await (await authjsCall("/auth/session", jar)).json();
    expect(session).toMatchObject({ user: { name: "Ada Lovelace", email: "ada@example.com" } });
  });

  it("the CSRF protocol is compatible in shape: the same endpoint, field and cookie name", async () => {
    const latchkey = await call(makeConfig(), "/auth/csrf");
    const authjs = await AuthJs(new Request(`${ORIGIN}/auth/csrf`), authjsConfig);
    expect(Object.keys((await latchkey.json()) as object)).toEqual(Object.keys((await authjs.json()) as object));
    const name = (r: Response) => r.headers.getSetCookie()[0]?.split("=")[0];
    expect(name(latchkey)).toBe(name(authjs));
  });
});
