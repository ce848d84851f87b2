/**
 * The contract every framework package of Latchkey runs (`runFrameworkContract`): one suite, one
 * behaviour, whatever the framework. A package's test gives a small driver (how to start an
 * application of that framework with a configuration and a mount, and which of its helpers to
 * reach) and calls `runFrameworkContract(driver)` once; the suite then holds the package to the
 * rules every shell shares: mounts (the default and an odd one), body limits, repeated fields,
 * hostile hosts, concurrency, the client address, cookies (attributes, a planted duplicate),
 * Cache-Control, and the session and account helpers the package exposes. Everything runs over
 * real HTTP on a loopback socket, through the package as an application uses it.
 * @module framework
 */
import { randomBytes } from "node:crypto";
import { request as httpRequest } from "node:http";
import type { AuthConfig } from "@latchkey/core";
import {
  type AccountMail,
  MemoryPasswordStore,
  type PasswordAccountsOptions,
  type PasswordStore,
} from "@latchkey/core/accounts";
import { createMemoryStore, MemoryAdapter } from "@latchkey/core/memory-adapter";
import { hashPassword } from "@latchkey/core/password";
import Credentials from "@latchkey/core/providers/credentials";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

/** A started application of the framework under test. */
export interface FrameworkServer {
  /** Its origin on a loopback name: `http://localhost:<port>`. */
  origin: string;
  close(): Promise<void>;
}

/** What the contract hands a driver besides the configuration. */
export interface FrameworkSetup {
  /**
   * Where the actions are served (`/auth`, `/api/auth`, or an odd path such as
   * `/odd.mount/v-2/auth`): the driver mounts them there its framework's way (a route prefix, a
   * plugin prefix, `basePath`). The configuration it is given names no `basePath`.
   */
  mount: string;
  /** The password accounts' options, for the drivers whose package exposes account functions. */
  accounts: PasswordAccountsOptions;
}

/** The helpers of a package the contract reaches, each through a route the driver serves. */
export interface FrameworkHelpers {
  /**
   * `POST /contract/sign-in`: the package's server-side sign-in (a form action, a server action)
   * given the posted form (`providerId`, `username`, `password`, `redirectTo`), answering its
   * redirect (3xx with `Location`) or, when it throws, 403 for `MissingCSRF` and 400 otherwise.
   */
  signIn?: boolean;
  /** `POST /contract/sign-out`: the package's server-side sign-out, answered as `signIn` is. */
  signOut?: boolean;
  /**
   * `POST /contract/forgot`: the package's `requestPasswordReset` given the request (its posted
   * `email`), answering `200 {"ok": ...}` with its result, or 403 for `MissingCSRF`.
   */
  requestPasswordReset?: boolean;
  /**
   * `POST /contract/change`: the package's `changePassword` given the request (its posted
   * `csrfToken`, `currentPassword`, `password`), answering `200` with its result, or 403 for
   * `MissingCSRF`.
   */
  changePassword?: boolean;
  /**
   * `GET /contract/csrf` answering `200 {"csrfToken": ...}` from the package's CSRF helper (its
   * cookie set), and `POST /contract/csrf-checked` behind the package's CSRF check for the
   * application's own forms, answering `200 {"ok": true}` (or the check's 403).
   */
  csrf?: boolean;
}

/** How the contract drives one framework package. */
export interface FrameworkDriver {
  /** The framework's name, in the suite's titles. */
  name: string;
  /** Where the package serves the actions when the configuration names no base path. */
  defaultMount: string;
  /**
   * Whether the framework names the peer's address (Express's and Fastify's `request.ip`,
   * SvelteKit's `getClientAddress()`, the socket under Hono): the client address when the
   * configuration has no `clientAddress`. Next.js names none.
   */
  namesPeer: boolean;
  /**
   * Whether the package has a route guard (`requireAuth`, or Next.js's `authorized` callback in
   * front of a route), served as `GET /contract/guarded`; `"redirect"` when it redirects every
   * client without a session (Next.js's proxy), `"status"` when a client that does not accept
   * HTML gets 401.
   */
  guard?: "status" | "redirect";
  helpers?: FrameworkHelpers;
  /**
   * The package's other session readers, each a `GET` path answering `200` with the {@link sessionAnswer} of its session as
   * `/contract/session` does (Hono's `session()` middleware, Next.js's `auth(handler)`).
   */
  readers?: string[];
  /**
   * Starts an application with `config`, the actions served at `setup.mount`, and these routes:
   * `GET /contract/session` answering `200` with the {@link sessionAnswer} of the package's session
   * read (`getSession`, `auth()`, `event.locals.auth()`), the guard's `GET /contract/guarded`
   * answering `200 {"id": ...}` behind it, and the routes of `helpers`.
   */
  start(config: AuthConfig, setup: FrameworkSetup): Promise<FrameworkServer>;
}

const USERS: Record<string, { id: string; name: string; password: string }> = {
  ada: { id: "u1", name: "Ada", password: "lovelace" },
  eve: { id: "u2", name: "Eve", password: "mallory" },
};
const EMAIL = "ada@example.com";
const USER_ID = "u1";
/** Ada's password in the password accounts' store (the credentials provider of the contract has its own). */
const ACCOUNT_PASSWORD = "lovelace analytical engine";
const ODD_MOUNT = "/odd.mount/v-2/auth";
const SESSION_COOKIE = "authjs.session-token";

/** What one started application of the contract records. */
interface Started {
  server: FrameworkServer;
  mount: string;
  base: string;
  mails: AccountMail[];
  accounts: PasswordAccountsOptions;
  /** Ada's stored password hash when the application started. */
  hash: string | null | undefined;
  /** The client address of each audited sign-in attempt, in order. */
  addresses: Array<string | undefined>;
  errors: unknown[];
}

/**
 * What a reader route of a driver answers for `session` (the package's session, or null): the
 * user's id, and whether there is a session at all (a session without an id is one).
 *
 * @example
 * ```ts
 * app.get("/contract/session", async (req, res) => res.json(sessionAnswer(await getSession(req, config))))
 * ```
 */
export function sessionAnswer(session: { user?: { id?: unknown } | null } | null | undefined): {
  id: string | null;
  signedIn: boolean;
} {
  const id = session?.user?.id;
  return { id: typeof id === "string" ? id : null, signedIn: !!session?.user };
}

/** A browser's cookie jar: what a response sets is sent back; redirects are not followed. */
export class ContractJar {
  readonly cookies = new Map<string, string>();
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
  keep(response: Response): Response {
    for (const line of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === "" || attributes.some((a) => /^\s*max-age=0\s*$/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }
  async fetch(url: string, init: RequestInit & { form?: string | Record<string, string> } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size && !headers.has("cookie")) headers.set("cookie", this.header());
    let body = init.body;
    if (init.form !== undefined) {
      headers.set("content-type", "application/x-www-form-urlencoded");
      body = typeof init.form === "string" ? init.form : new URLSearchParams(init.form).toString();
    }
    const method = init.method ?? (body ? "POST" : "GET");
    return this.keep(await fetch(url, { ...init, method, body, headers, redirect: "manual" }));
  }
  copy(): ContractJar {
    const copy = new ContractJar();
    for (const [name, value] of this.cookies) copy.cookies.set(name, value);
    return copy;
  }
}

/** A raw HTTP/1.1 request, for what `fetch` will not send (a hostile `Host`, a header twice). */
export function raw(
  url: string,
  init: { method?: string; headers?: Record<string, string | string[]>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: init.method ?? "GET", headers: init.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }),
      );
      res.on("error", reject);
    });
    req.once("error", reject);
    req.end(init.body);
  });
}

/** The CSRF token of the actions under `base` for `jar` (its cookie kept in the jar). */
async function csrfOf(jar: ContractJar, base: string): Promise<string> {
  const { csrfToken } = (await (await jar.fetch(`${base}/csrf`)).json()) as { csrfToken: string };
  return csrfToken;
}

/** A password sign-in through the credentials callback under `base`, the form given as text or fields. */
async function signIn(jar: ContractJar, base: string, user = "ada", password?: string): Promise<Response> {
  const csrfToken = await csrfOf(jar, base);
  return jar.fetch(`${base}/callback/credentials`, {
    form: { csrfToken, username: user, password: password ?? USERS[user]?.password ?? "" },
  });
}

/** Who `GET <path>` (`/contract/session` or another reader) says the browser holding `jar` is (null: nobody). */
async function who(jar: ContractJar, origin: string, path = "/contract/session"): Promise<string | null> {
  const response = await jar.fetch(`${origin}${path}`, { headers: { accept: "application/json" } });
  expect(response.status, path).toBe(200);
  const body = (await response.json()) as { id?: unknown } | null;
  return typeof body?.id === "string" ? body.id : null;
}

/** Who each of the package's readers says the browser holding `jar` is (read on copies: a read changes no jar). */
async function seen(driver: FrameworkDriver, jar: ContractJar, origin: string): Promise<Record<string, string | null>> {
  const out: Record<string, string | null> = {};
  for (const path of readersOf(driver)) out[path] = await who(jar.copy(), origin, path);
  return out;
}

/** Every session reader of the package. */
const readersOf = (driver: FrameworkDriver) => ["/contract/session", ...(driver.readers ?? [])];

/** `id` at every reader of the package. */
const everywhere = (driver: FrameworkDriver, id: string | null) =>
  Object.fromEntries(readersOf(driver).map((path) => [path, id]));

/**
 * The contract's configuration: a password sign-in for ada and eve (users of a memory adapter, so
 * that the account functions find them), JWT sessions, audited, on a secret of its own.
 */
async function contractConfig(
  started: Pick<Started, "addresses" | "errors">,
  extra: Partial<AuthConfig> = {},
): Promise<AuthConfig> {
  const adapter = MemoryAdapter(createMemoryStore());
  for (const [name, user] of Object.entries(USERS))
    await adapter.createUser?.({
      id: user.id,
      name: user.name,
      email: `${name}@example.com`,
      emailVerified: new Date(),
    });
  return {
    secret: `framework-contract-${randomBytes(16).toString("hex")}`,
    adapter,
    session: { strategy: "jwt", revocation: true },
    providers: [
      Credentials({
        credentials: { username: {}, password: {} },
        authorize: (c) => {
          const user = USERS[String(c.username)];
          return user && user.password === c.password ? { id: user.id, name: user.name } : null;
        },
      }),
    ],
    callbacks: {
      session: ({ session, token }) => ({ ...session, user: { ...session.user, id: String(token.sub) } }),
    },
    audit: {},
    events: { audit: (event) => void started.addresses.push((event as { clientAddress?: string }).clientAddress) },
    logger: { error: (e) => void started.errors.push(e), warn() {}, debug() {} },
    ...extra,
  };
}

async function accountsOptions(mails: AccountMail[]): Promise<PasswordAccountsOptions> {
  const passwords: PasswordStore = new MemoryPasswordStore();
  const hash = { parameters: { ln: 10 } };
  await passwords.setPasswordHash(USER_ID, await hashPassword(ACCOUNT_PASSWORD, hash));
  return {
    passwords,
    urls: { verify: "/verify", reset: "/reset", signIn: "/signin", signUp: "/signup" },
    breached: false,
    hash,
    send: async (mail) => void mails.push(mail),
  };
}

/**
 * The session-read table of another part of the contract, run over this driver when it is
 * given: a function of `@latchkey/adapter-test` that takes the driver (see `sessionReadTable`).
 */
export type FrameworkTable = (driver: FrameworkDriver) => void;

/**
 * Runs the framework contract over `driver`: one `describe` of the rules every Latchkey framework
 * package keeps. `tables` are further shared tables run over the same driver (the session-read
 * table, the hostile-host mail cases) as they are added to this package.
 *
 * @example
 * ```ts
 * // packages/hono/test/contract.test.ts
 * runFrameworkContract({ name: "Hono", defaultMount: "/auth", namesPeer: true, guard: "status", start })
 * ```
 */
export function runFrameworkContract(driver: FrameworkDriver, tables: FrameworkTable[] = []): void {
  describe(`${driver.name}: the framework contract`, () => {
    const running: Started[] = [];

    /** Starts an application of the framework at `mount`, with `extra` options in its configuration. */
    async function start(mount: string, extra: Partial<AuthConfig> = {}): Promise<Started> {
      const started = { mails: [], addresses: [], errors: [] } as unknown as Started;
      const accounts = await accountsOptions(started.mails);
      started.accounts = accounts;
      started.hash = await accounts.passwords.getPasswordHash(USER_ID);
      const config = await contractConfig(started, extra);
      started.server = await driver.start(config, { mount, accounts });
      started.mount = mount;
      started.base = `${started.server.origin}${mount}`;
      running.push(started);
      return started;
    }
    afterAll(async () => {
      await Promise.all(running.map((s) => s.server.close()));
    });

    let app: Started;
    beforeAll(async () => {
      app = await start(driver.defaultMount);
    });

    describe("rule: the actions and the package's readers agree at any mount", () => {
      it.each([
        ["the default mount", ""],
        ["an odd mount", ODD_MOUNT],
      ])(
        "%s: signs in, the package reads the session, a signed-out browser is sent to sign in there",
        async (_label, odd) => {
          const served = odd ? await start(odd) : app;
          const jar = new ContractJar();
          const answer = await signIn(jar, served.base);
          expect(answer.status).toBe(302);
          expect(await seen(driver, jar, served.server.origin)).toEqual(everywhere(driver, "u1"));
          expect(await seen(driver, new ContractJar(), served.server.origin)).toEqual(everywhere(driver, null));
          if (!driver.guard) return;
          expect(await (await jar.fetch(`${served.server.origin}/contract/guarded`)).json()).toEqual({ id: "u1" });
          const browser = await fetch(`${served.server.origin}/contract/guarded?tab=1`, {
            headers: { accept: "text/html" },
            redirect: "manual",
          });
          expect([302, 303, 307]).toContain(browser.status);
          const location = new URL(browser.headers.get("location") ?? "", served.server.origin);
          expect(location.pathname).toBe(`${served.mount}/signin`);
          expect(location.searchParams.get("callbackUrl")).toMatch(/\/contract\/guarded\?tab=1$/);
          if (driver.guard === "status") {
            const api = await fetch(`${served.server.origin}/contract/guarded`, {
              headers: { accept: "application/json" },
            });
            expect(api.status).toBe(401);
          }
        },
      );
    });

    describe("rule: a body is read within 64 KiB", () => {
      it("attack: a form over the bound is refused with 413 and signs nobody in", async () => {
        const jar = new ContractJar();
        const csrfToken = await csrfOf(jar, app.base);
        const response = await jar.fetch(`${app.base}/callback/credentials`, {
          form: `csrfToken=${csrfToken}&username=ada&password=lovelace&pad=${"x".repeat(70 * 1024)}`,
        });
        expect(response.status).toBe(413);
        expect(await who(jar, app.server.origin)).toBeNull();
      });
    });

    describe("rule: the first of a repeated form field wins", () => {
      it("attack: a forged csrfToken first and the browser's own second is refused", async () => {
        const jar = new ContractJar();
        const csrfToken = await csrfOf(jar, app.base);
        const response = await jar.fetch(`${app.base}/callback/credentials`, {
          form: `csrfToken=forged&csrfToken=${csrfToken}&username=ada&password=lovelace`,
        });
        expect(response.headers.get("location") ?? "").toMatch(/error=MissingCSRF/);
        expect(await who(jar, app.server.origin)).toBeNull();
      });

      it("a repeated username counts by its first value: ada's password signs in ada, whatever follows", async () => {
        const jar = new ContractJar();
        const csrfToken = await csrfOf(jar, app.base);
        const response = await jar.fetch(`${app.base}/callback/credentials`, {
          form: `csrfToken=${csrfToken}&username=ada&username=eve&password=lovelace&password=mallory`,
        });
        expect(response.status).toBe(302);
        expect(await who(jar, app.server.origin)).toBe("u1");
      });
    });

    describe("rule: a host the client names never becomes a link, and never a 5xx", () => {
      it("attack: a Host no URL can hold gets a 4xx at the actions, or is not what the framework reads (SvelteKit's ORIGIN)", async () => {
        for (const host of ["evil.example/../x", "a b", "[::1"]) {
          for (const path of ["/session", "/signin"]) {
            const answer = await raw(`${app.base}${path}`, { headers: { host } });
            expect(answer.status, host).toBeLessThan(500);
            expect(String(answer.headers.location ?? ""), host).not.toContain("evil.example");
            expect(answer.body, host).not.toMatch(/\/\/evil\.example/);
          }
        }
      });

      it("attack: X-Forwarded-Host and Forwarded from a client name no link the actions answer", async () => {
        const headers = { "x-forwarded-host": "evil.example", forwarded: "host=evil.example;proto=https" };
        for (const path of ["/signin", "/providers", "/csrf"]) {
          const answer = await raw(`${app.base}${path}`, { headers });
          expect(answer.status, path).toBeLessThan(500);
          expect(String(answer.headers.location ?? ""), path).not.toContain("evil.example");
          expect(answer.body, path).not.toMatch(/\/\/evil\.example/);
        }
      });
    });

    describe("rule: requests at once are requests one by one", () => {
      // Each on an application of its own: together they pass the per-address limit of attempts (100).
      let app: Started;
      beforeEach(async () => {
        app = await start(driver.defaultMount);
      });

      it("attack: 40 sign-ins at once each get their own session, and each reads as its own", async () => {
        const jars = Array.from({ length: 40 }, () => new ContractJar());
        const answers = await Promise.all(jars.map((jar) => signIn(jar, app.base)));
        expect(answers.map((r) => r.status)).toEqual(jars.map(() => 302));
        expect(new Set(jars.map((jar) => jar.cookies.get(SESSION_COOKIE))).size).toBe(40);
        expect(await Promise.all(jars.map((jar) => who(jar, app.server.origin)))).toEqual(jars.map(() => "u1"));
      });

      it("attack: the same signed-in request 40 times at once reads the same session, never a 5xx", async () => {
        const jar = new ContractJar();
        await signIn(jar, app.base);
        const reads = await Promise.all(Array.from({ length: 40 }, () => jar.copy().fetch(`${app.base}/session`)));
        expect(reads.map((r) => r.status)).toEqual(reads.map(() => 200));
        const ids = await Promise.all(
          reads.map(async (r) => ((await r.json()) as { user?: { id?: string } }).user?.id),
        );
        expect(ids).toEqual(reads.map(() => "u1"));
      });

      it("attack: one sign-in form posted 40 times at once: every answer a redirect, no 5xx", async () => {
        const jar = new ContractJar();
        const csrfToken = await csrfOf(jar, app.base);
        const form = { csrfToken, username: "ada", password: "lovelace" };
        const answers = await Promise.all(
          Array.from({ length: 40 }, () => jar.copy().fetch(`${app.base}/callback/credentials`, { form })),
        );
        expect(answers.map((r) => r.status)).toEqual(answers.map(() => 302));
      });
    });

    describe("rule: the client address is the configuration's clientAddress, else the framework's peer", () => {
      const wrong = (served: Started, headers: Record<string, string>) => {
        const jar = new ContractJar();
        return csrfOf(jar, served.base).then((csrfToken) =>
          jar.fetch(`${served.base}/callback/credentials`, {
            form: { csrfToken, username: "ada", password: "wrong" },
            headers,
          }),
        );
      };

      it("the option wins over the peer", async () => {
        const served = await start(driver.defaultMount, {
          clientAddress: (request) => request.headers.get("x-contract-client"),
        });
        expect((await wrong(served, { "x-contract-client": "203.0.113.77" })).status).toBe(302);
        expect(served.addresses).toEqual(["203.0.113.77"]);
      });

      it("attack: an option that throws counts as unset (the peer, or none), never a 5xx", async () => {
        const served = await start(driver.defaultMount, {
          clientAddress: () => {
            throw new Error("no such header");
          },
        });
        expect((await wrong(served, {})).status).toBe(302);
        expect(served.addresses).toHaveLength(1);
        if (driver.namesPeer) expect(served.addresses[0]).toMatch(/127\.0\.0\.1$|^::1$/);
        else expect(served.addresses[0]).toBeUndefined();
      });

      it("without the option: the framework's peer, never a header a client writes", async () => {
        expect((await wrong(app, { "x-forwarded-for": "198.51.100.9", "x-real-ip": "198.51.100.9" })).status).toBe(302);
        const seen = app.addresses.at(-1);
        if (driver.namesPeer) expect(seen).toMatch(/127\.0\.0\.1$|^::1$/);
        else expect(seen).toBeUndefined();
      });
    });

    describe("rule: cookies", () => {
      it("the session cookie is HttpOnly, SameSite=Lax, Path=/ (no Secure over http)", async () => {
        const answer = await signIn(new ContractJar(), app.base);
        const cookie = answer.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`)) ?? "";
        expect(cookie).toMatch(/;\s*HttpOnly/i);
        expect(cookie).toMatch(/;\s*SameSite=Lax/i);
        expect(cookie).toMatch(/;\s*Path=\/(;|$)/i);
        expect(cookie).not.toMatch(/;\s*Secure/i);
      });

      it("attack: a session cookie planted beside the browser's own (a sibling's domain, a longer Path) decides nothing", async () => {
        const owner = new ContractJar();
        await signIn(owner, app.base);
        const attacker = new ContractJar();
        await signIn(attacker, app.base, "eve");
        const planted = `${SESSION_COOKIE}=${attacker.cookies.get(SESSION_COOKIE)}`;
        const own = `${SESSION_COOKIE}=${owner.cookies.get(SESSION_COOKIE)}`;
        for (const cookie of [`${planted}; ${own}`, `${own}; ${planted}`]) {
          const jar = new ContractJar();
          for (const path of readersOf(driver)) {
            const read = await jar.fetch(`${app.server.origin}${path}`, { headers: { cookie } });
            expect(await read.json(), path).toEqual({ id: null, signedIn: false });
          }
          const session = await jar.fetch(`${app.base}/session`, { headers: { cookie } });
          expect(await session.json()).toBeNull();
          if (driver.guard === "status") {
            const guarded = await fetch(`${app.server.origin}/contract/guarded`, {
              headers: { cookie, accept: "application/json" },
            });
            expect(guarded.status).toBe(401);
          }
        }
      });

      it("attack: a session cookie Latchkey did not seal is no session", async () => {
        const cookie = `${SESSION_COOKIE}=planted.value.of.an.attacker`;
        const read = await fetch(`${app.server.origin}/contract/session`, { headers: { cookie } });
        expect(await read.json()).toEqual({ id: null, signedIn: false });
        if (driver.guard === "status") {
          const guarded = await fetch(`${app.server.origin}/contract/guarded`, {
            headers: { cookie, accept: "application/json" },
          });
          expect(guarded.status).toBe(401);
        }
      });
    });

    describe("rule: nothing that carries a session or sets a cookie is cached", () => {
      it("every answer of the actions that sets a cookie, and the session of a signed-in user, is no-store", async () => {
        const jar = new ContractJar();
        const answers = [await jar.fetch(`${app.base}/csrf`)];
        answers.push(await signIn(jar, app.base));
        answers.push(await jar.fetch(`${app.base}/session`));
        answers.push(await jar.fetch(`${app.base}/signout`, { form: { csrfToken: await csrfOf(jar, app.base) } }));
        for (const answer of answers) {
          if (!answer.headers.getSetCookie().length && !answer.url.endsWith("/session")) continue;
          expect(answer.headers.get("cache-control") ?? "", answer.url).toMatch(/no-store/);
        }
      });
    });

    const helpers = driver.helpers ?? {};
    if (helpers.signIn || helpers.signOut)
      describe("rule: the server-side sign-in and sign-out keep the origin rule and the form rule", () => {
        const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
        const sameOrigin = () => ({ origin: app.server.origin, "sec-fetch-site": "same-origin" });

        it.runIf(helpers.signIn)(
          "signs in from the application's own page; the first of a repeated field wins",
          async () => {
            const jar = new ContractJar();
            const answer = await jar.fetch(`${app.server.origin}/contract/sign-in`, {
              form: `${form({ providerId: "credentials", redirectTo: "/" })}&username=ada&username=eve&password=lovelace&password=mallory`,
              headers: sameOrigin(),
            });
            expect([302, 303, 307]).toContain(answer.status);
            expect(await who(jar, app.server.origin)).toBe("u1");
          },
        );

        it.runIf(helpers.signIn)("attack: a sign-in another site posts is refused: no session", async () => {
          for (const headers of [
            { origin: "http://evil.example", "sec-fetch-site": "cross-site" },
            { origin: app.server.origin, "sec-fetch-site": "same-site" },
          ]) {
            const jar = new ContractJar();
            const answer = await jar.fetch(`${app.server.origin}/contract/sign-in`, {
              form: form({ providerId: "credentials", username: "ada", password: "lovelace", redirectTo: "/" }),
              headers,
            });
            expect(answer.status).toBe(403);
            expect(await who(jar, app.server.origin)).toBeNull();
          }
        });

        it.runIf(helpers.signOut)(
          "signs out from the application's own page: the session is read as none after",
          async () => {
            const jar = new ContractJar();
            await signIn(jar, app.base);
            const thief = jar.copy();
            expect(await who(thief, app.server.origin)).toBe("u1");
            const answer = await jar.fetch(`${app.server.origin}/contract/sign-out`, {
              form: form({ redirectTo: "/" }),
              headers: sameOrigin(),
            });
            expect([302, 303, 307]).toContain(answer.status);
            expect(await who(jar, app.server.origin)).toBeNull();
          },
        );
      });

    if (helpers.requestPasswordReset)
      describe("rule: the account functions read a form as the actions do", () => {
        it("a repeated email counts by its first value: the reset link is mailed to the first address only", async () => {
          const served = await start(driver.defaultMount);
          const answer = await new ContractJar().fetch(`${served.server.origin}/contract/forgot`, {
            form: `email=${encodeURIComponent(EMAIL)}&email=${encodeURIComponent("eve@example.com")}`,
            headers: { origin: served.server.origin, "sec-fetch-site": "same-origin" },
          });
          expect(answer.status).toBe(200);
          expect(await answer.json()).toEqual({ ok: true });
          expect(served.mails.map((m) => m.to)).toEqual([EMAIL]);
        });
      });

    if (helpers.changePassword)
      describe("rule: a change of password keeps the origin rule: the signed-in user's own form only", () => {
        it("attack: a change another site posts, or one without the CSRF token, changes nothing: 403", async () => {
          const served = await start(driver.defaultMount);
          const jar = new ContractJar();
          await signIn(jar, served.base);
          const fields = { currentPassword: ACCOUNT_PASSWORD, password: "a new passphrase for ada 2" };
          const attempts: Array<[Record<string, string>, Record<string, string>]> = [
            [fields, { origin: "http://evil.example", "sec-fetch-site": "cross-site" }],
            [{ ...fields, csrfToken: "forged" }, {}],
          ];
          for (const [form, headers] of attempts) {
            const answer = await jar.fetch(`${served.server.origin}/contract/change`, { form, headers });
            expect(answer.status).toBe(403);
          }
          expect(await served.accounts.passwords.getPasswordHash(USER_ID)).toBe(served.hash);
        });

        it("honest: the signed-in user's own form, with its CSRF token, changes the password and keeps her signed in", async () => {
          const served = await start(driver.defaultMount);
          const jar = new ContractJar();
          await signIn(jar, served.base);
          const csrfToken = await csrfOf(jar, served.base);
          const answer = await jar.fetch(`${served.server.origin}/contract/change`, {
            form: { csrfToken, currentPassword: ACCOUNT_PASSWORD, password: "a new passphrase for ada 2" },
            headers: { origin: served.server.origin, "sec-fetch-site": "same-origin" },
          });
          expect(answer.status).toBe(200);
          expect(await answer.json()).toMatchObject({ ok: true });
          expect(await served.accounts.passwords.getPasswordHash(USER_ID)).not.toBe(served.hash);
          expect(await who(jar, served.server.origin)).toBe("u1");
        });
      });

    if (helpers.csrf)
      describe("rule: the package's CSRF check for the application's own forms is the actions' double-submit check", () => {
        const tokenOf = async (jar: ContractJar) =>
          ((await (await jar.fetch(`${app.server.origin}/contract/csrf`)).json()) as { csrfToken: string }).csrfToken;

        it("the token the helper gives passes; a forged one, another browser's, a forged one first, or none with no cookie do not", async () => {
          const jar = new ContractJar();
          const csrfToken = await tokenOf(jar);
          const url = `${app.server.origin}/contract/csrf-checked`;
          expect((await jar.fetch(url, { form: { csrfToken } })).status).toBe(200);
          const others = await tokenOf(new ContractJar());
          expect((await jar.fetch(url, { form: { csrfToken: "forged" } })).status).toBe(403);
          expect((await jar.fetch(url, { form: { csrfToken: others } })).status).toBe(403);
          expect((await jar.fetch(url, { form: `csrfToken=forged&csrfToken=${csrfToken}` })).status).toBe(403);
          expect((await new ContractJar().fetch(url, { form: { csrfToken } })).status).toBe(403);
        });
      });

    for (const table of tables) table(driver);
  });
}
