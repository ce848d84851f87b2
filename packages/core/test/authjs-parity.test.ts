/**
 * Behaviours an application moving from Auth.js relies on, each found by running Auth.js's own
 * suites against Latchkey: `signIn()` without a provider, and adapters made to Auth.js's minimal
 * requirements.
 */
import { describe, expect, it } from "vitest";
import type { Adapter, AdapterUser, VerificationToken } from "../src/index.js";
import { CookieJar, call, csrfToken, makeConfig, ORIGIN, recordingLogger } from "./helpers.js";

describe("/signin/undefined means no provider, as framework clients send it", () => {
  it("GET renders the sign-in page", async () => {
    const response = await call(makeConfig(), "/auth/signin/undefined");
    expect(response.status).toBe(200);
    expect(await response.text()).toContain(`action="${ORIGIN}/auth/callback/credentials"`);
  });
  it("POST with the CSRF token answers the sign-in page's URL, as POST /signin does", async () => {
    const config = makeConfig();
    const jar = new CookieJar();
    const token = await csrfToken(config, jar);
    const response = await call(config, "/auth/signin/undefined", {
      jar,
      form: { csrfToken: token },
      headers: { "x-auth-return-redirect": "1" },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ url: `${ORIGIN}/auth/signin` });
  });
  it("a provider id that is merely like it (`Undefined`, `undefined2`) is still an unknown provider", async () => {
    const config = makeConfig();
    const jar = new CookieJar();
    const token = await csrfToken(config, jar);
    for (const id of ["Undefined", "undefined2"]) {
      const response = await call(config, `/auth/signin/${id}`, { jar, form: { csrfToken: token } });
      expect(response.headers.get("location")).toMatch(/error=/);
    }
  });
});

/** An adapter with exactly what Auth.js asks of one for e-mail sign-in under JWT sessions. */
function minimalEmailAdapter(users: AdapterUser[]) {
  const tokens = new Map<string, VerificationToken>();
  return {
    createVerificationToken: async (t: VerificationToken) => {
      tokens.set(`${t.identifier}:${t.token}`, t);
      return t;
    },
    useVerificationToken: async ({ identifier, token }: { identifier: string; token: string }) => {
      const found = tokens.get(`${identifier}:${token}`) ?? null;
      tokens.delete(`${identifier}:${token}`);
      return found;
    },
    getUserByEmail: async (email: string) => users.find((u) => u.email === email) ?? null,
  } satisfies Partial<Adapter>;
}

describe("an adapter is asked only for what the chosen strategy needs", () => {
  function emailConfig(adapter: Partial<Adapter>, logger = recordingLogger().logger) {
    const links: string[] = [];
    const config = makeConfig({
      adapter: adapter as Adapter,
      session: { strategy: "jwt" },
      logger,
      providers: [
        {
          id: "mail",
          name: "Mail",
          type: "email",
          sendVerificationRequest: ({ url }: { url: string }) => void links.push(url),
        },
      ],
    });
    return { config, links };
  }
  async function signInByLink(config: ReturnType<typeof makeConfig>, links: string[], email: string) {
    const jar = new CookieJar();
    const token = await csrfToken(config, jar);
    const sent = await call(config, "/auth/signin/mail", { jar, form: { csrfToken: token, email } });
    expect(sent.headers.get("location")).toContain("/auth/verify-request");
    const link = new URL(links.at(-1) as string);
    const landed = await call(config, `${link.pathname}${link.search}`, { jar });
    return { landed, jar };
  }

  it("e-mail sign-in under JWT needs only createVerificationToken, useVerificationToken and getUserByEmail", async () => {
    const ada: AdapterUser = { id: "u-ada", email: "ada@example.com", emailVerified: new Date(), name: "Ada" };
    const { config, links } = emailConfig(minimalEmailAdapter([ada]));
    const { landed, jar } = await signInByLink(config, links, "ada@example.com");
    expect(new URL(landed.headers.get("location") as string).href).toBe(`${ORIGIN}/`);
    const session = await (await call(config, "/auth/session", { jar })).json();
    expect(session).toMatchObject({ user: { email: "ada@example.com" } });
  });
  it("a sign-in that must create a user the minimal adapter cannot create fails closed, naming the method", async () => {
    const { logger, errors } = recordingLogger();
    const { config, links } = emailConfig(minimalEmailAdapter([]), logger);
    const { landed, jar } = await signInByLink(config, links, "new@example.com");
    expect(landed.headers.get("location")).toMatch(/error=/);
    expect(jar.get("authjs.session-token")).toBeUndefined();
    expect(errors.some((e) => /createUser/.test(`${e.message} ${(e.cause as { err?: Error })?.err?.message}`))).toBe(
      true,
    );
  });
  it("the database strategy still demands the session methods, naming the missing ones", async () => {
    const { logger, errors } = recordingLogger();
    const { config } = emailConfig(minimalEmailAdapter([]), logger);
    const database = { ...config, session: { strategy: "database" as const } };
    const response = await call(database, "/auth/session");
    expect(response.status).toBe(500);
    expect(errors[0]).toMatchObject({ type: "MissingAdapterMethods" });
    expect(errors[0]?.message).toMatch(/createSession/);
  });
});
