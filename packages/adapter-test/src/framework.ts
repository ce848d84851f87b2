/**
 * The contract every framework package of Latchkey runs (`runFrameworkContract`): one suite, one
 * behaviour, whatever the framework. A package's test gives a small driver (how to start an
 * application of that framework with a configuration and a mount, and which of its helpers to
 * reach) and calls `runFrameworkContract(driver)` once; the suite then holds the package to the
 * rules every shell shares: mounts (the default and an odd one), body limits, repeated fields,
 * hostile hosts, concurrency, the client address, cookies (attributes, a planted duplicate),
 * Cache-Control, the session and account helpers the package exposes, the organization guard
 * (core's `requireAuth` with `organization` / `permission`) and the API-key guard. Everything runs over
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
import { ApiKeys, type ApiKeysApi, MemoryApiKeyStore } from "@latchkey/core/api-keys";
import { createMemoryStore, MemoryAdapter } from "@latchkey/core/memory-adapter";
import {
  builtInRoles,
  defineRoles,
  MemoryOrganizationStore,
  Organizations,
  type OrganizationsApi,
} from "@latchkey/core/organizations";
import { hashPassword } from "@latchkey/core/password";
import Credentials from "@latchkey/core/providers/credentials";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { untilTrue } from "./wait.js";

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
  /**
   * The application's API keys (`ApiKeys(config, { store })`), for the package's API-key guard at
   * `GET /contract/api-key` (see {@link FrameworkDriver.apiKeyGuard}); absent where the suite asks
   * nothing of API keys.
   */
  apiKeys?: ApiKeysApi;
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
  /**
   * `POST /contract/switch-organization`: the package's server-side switch of the active
   * organization (a server action, a form action) given the posted form (`organizationId`),
   * answering `200 {"activeOrganization": ...}`, its refusal's status with `{"error": ...}`, or
   * 403 for `MissingCSRF`.
   */
  switchOrganization?: boolean;
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
   * Whether the package has the organization guard (core's `requireAuth` with `organization`,
   * `role`, `permission`), served when the configuration has `organizations` as
   * `GET /contract/organization` (`{ organization: true }`) and `GET /contract/permission`
   * (`{ permission: "project:delete" }`), each answering `200 {"id": ..., "organizationId": ...}`
   * (the session's user and active organization) behind it, and a client that does not accept
   * HTML a `401`/`403` with the guard's JSON body.
   */
  organizationGuard?: boolean;
  /**
   * Whether the package has an API-key guard, served when `setup.apiKeys` is given as
   * `GET /contract/api-key` demanding the scope `project:read` and answering
   * `200 {"id": ..., "owner": ...}` (the key's principal) behind it, core's refusal otherwise.
   */
  apiKeyGuard?: boolean;
  /**
   * Whether the server under the framework shows the guard an `Authorization` header sent twice
   * (Node.js keeps only the first in `request.headers` and every one in `rawHeaders`; Hono's
   * Node.js server joins them). False where the framework builds its request from Node.js's
   * `headers` (Next.js's server, SvelteKit's adapter-node): the first is then the only one it has.
   */
  seesRepeatedAuthorization?: boolean;
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
const ADA = "u1";
const EVE = "u2";
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
  /** The application's organizations (its configuration's `organizations`). */
  orgs: OrganizationsApi;
  /** The application's API keys, the ones the package's guard is given. */
  keys: ApiKeysApi;
  /** The API keys of another instance of the application: its own configuration object, the same store. */
  otherKeys: ApiKeysApi;
}

/** The contract's roles: admins (and owners) may delete projects, members read them. */
const ROLES = defineRoles({
  ...builtInRoles,
  admin: [...builtInRoles.admin, "project:delete"],
  member: ["project:read"],
});
const ACTIVE_ORGANIZATION_COOKIE = `${SESSION_COOKIE}-organization`;

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

/**
 * What an organization-guarded route of a driver answers for `session`: the user's id and the
 * active organization's (null: none).
 *
 * @example
 * ```ts
 * app.get("/contract/organization", requireAuth(config, { organization: true }), (_req, res) => res.json(organizationAnswer(res.locals.session)))
 * ```
 */
export function organizationAnswer(session: { user?: { id?: unknown } | null } | null | undefined): {
  id: string | null;
  organizationId: string | null;
} {
  const active = (session as { activeOrganization?: { id?: unknown } | null } | null | undefined)?.activeOrganization;
  return { id: sessionAnswer(session).id, organizationId: typeof active?.id === "string" ? active.id : null };
}

/**
 * What an API-key-guarded route of a driver answers for the key's principal: its id and owner.
 *
 * @example
 * ```ts
 * app.get("/contract/api-key", requireApiKey(keys, { scopes: ["project:read"] }), (c) => c.json(apiKeyAnswer(c.get("apiKey"))))
 * ```
 */
export function apiKeyAnswer(key: { id: string; owner: { type: string; id: string } }): {
  id: string;
  owner: { type: string; id: string };
} {
  return { id: key.id, owner: key.owner };
}

/** The guard options of `GET /contract/organization` and `GET /contract/permission`, and the scopes of `GET /contract/api-key`. */
export const CONTRACT_GUARDS = {
  organization: { organization: true },
  permission: { permission: "project:delete" },
  apiKey: { scopes: ["project:read"] },
} as const;

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
      // A session update may rename the user (the `jwt` callback's `trigger: "update"`), nothing else.
      jwt: ({ token, trigger, session }) => {
        const name = (session as { name?: unknown } | undefined)?.name;
        return trigger === "update" && typeof name === "string" ? { ...token, name } : token;
      },
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
      const organizationStore = MemoryOrganizationStore();
      const config = await contractConfig(started, {
        organizations: { store: organizationStore, roles: ROLES },
        ...extra,
      });
      started.orgs = Organizations(config, { store: organizationStore, roles: ROLES });
      const keyOptions = {
        store: MemoryApiKeyStore(),
        organizations: started.orgs,
        userScopes: ["project:read", "project:write"],
      };
      started.keys = ApiKeys(config, keyOptions);
      started.otherKeys = ApiKeys({ ...config }, keyOptions);
      started.server = await driver.start(config, { mount, accounts, apiKeys: started.keys });
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

    describe("rule: a session update (POST <basePath>/session) needs the browser's own CSRF token", () => {
      /** The user's name the session action answers for `jar`. */
      const nameOf = async (jar: ContractJar) =>
        ((await (await jar.fetch(`${app.base}/session`)).json()) as { user?: { name?: string } } | null)?.user?.name;
      const update = (jar: ContractJar, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
        jar.fetch(`${app.base}/session`, {
          method: "POST",
          body: JSON.stringify(body),
          headers: { "content-type": "application/json", accept: "application/json", ...headers },
        });

      it("honest: with its token, the update goes through the callbacks and the next read shows it", async () => {
        const jar = new ContractJar();
        await signIn(jar, app.base);
        const csrfToken = await csrfOf(jar, app.base);
        const answer = await update(jar, { csrfToken, data: { name: "Ada L." } });
        expect(answer.status).toBe(200);
        expect(((await answer.json()) as { user?: { name?: string } }).user?.name).toBe("Ada L.");
        expect(await nameOf(jar)).toBe("Ada L.");
      });

      it("attack: no token, a forged one, another browser's, or its own without its CSRF cookie changes nothing and is never a 5xx", async () => {
        const jar = new ContractJar();
        await signIn(jar, app.base);
        const others = await csrfOf(new ContractJar(), app.base);
        const own = await csrfOf(jar, app.base);
        const attempts: Array<[Record<string, unknown>, Record<string, string>]> = [
          [{ data: { name: "Mallory" } }, {}],
          [{ csrfToken: "forged", data: { name: "Mallory" } }, {}],
          [{ csrfToken: others, data: { name: "Mallory" } }, {}],
          // The browser's own token, sent with another browser's cookies: the token is bound to its cookie.
          [
            { csrfToken: own, data: { name: "Mallory" } },
            { cookie: `${SESSION_COOKIE}=${jar.cookies.get(SESSION_COOKIE)}` },
          ],
        ];
        for (const [body, headers] of attempts) {
          const answer = await update(jar.copy(), body, headers);
          expect(answer.status, `${JSON.stringify(body)} ${JSON.stringify(headers)}`).not.toBe(200);
          expect(answer.status, JSON.stringify(body)).toBeLessThan(500);
          expect(await nameOf(jar)).toBe("Ada");
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

    if (driver.organizationGuard)
      describe("rule: the organization guard is core's requireAuth, whatever the framework", () => {
        let served: Started;
        beforeAll(async () => {
          served = await start(driver.defaultMount);
        });
        const json = { accept: "application/json" };
        /** What `path` answers the browser holding `jar` (as an API client). */
        const at = async (jar: ContractJar, path: string, headers: Record<string, string> = {}) => {
          const answer = await jar.fetch(`${served.server.origin}${path}`, { headers: { ...json, ...headers } });
          const text = await answer.text();
          return { status: answer.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> | null };
        };
        /** Switches the active organization through the action `POST <base>/organization`. */
        const choose = async (jar: ContractJar, organizationId: string) => {
          const csrfToken = await csrfOf(jar, served.base);
          return jar.fetch(`${served.base}/organization`, { form: { csrfToken, organizationId }, headers: json });
        };
        /** A new organization owned by `owner`, with `members` added by the owner. */
        const organization = async (owner: string, members: Record<string, string> = {}) => {
          const slug = `contract-${randomBytes(4).toString("hex")}`;
          const created = await served.orgs.create(owner, { name: slug, slug });
          if (!created.ok) throw new Error(`the contract could not create an organization: ${created.reason}`);
          for (const [userId, role] of Object.entries(members)) {
            const added = await served.orgs.addMember(owner, created.value.id, { userId, role });
            if (!added.ok) throw new Error(`the contract could not add ${userId}: ${added.reason}`);
          }
          return created.value.id;
        };
        const signedIn = async (user: string) => {
          const jar = new ContractJar();
          expect((await signIn(jar, served.base, user)).status).toBe(302);
          return jar;
        };

        it("signed out: a client gets 401 SessionRequired, a browser is sent to sign in with its URL", async () => {
          for (const path of ["/contract/organization", "/contract/permission"]) {
            expect(await at(new ContractJar(), path)).toMatchObject({
              status: 401,
              body: { error: "SessionRequired" },
            });
            const browser = await fetch(`${served.server.origin}${path}?tab=2`, {
              headers: { accept: "text/html" },
              redirect: "manual",
            });
            expect([302, 303, 307], path).toContain(browser.status);
            const location = new URL(browser.headers.get("location") ?? "", served.server.origin);
            expect(location.pathname).toBe(`${served.mount}/signin`);
            expect(location.searchParams.get("callbackUrl")).toMatch(new RegExp(`${path}\\?tab=2$`));
          }
        });

        it("signed in without an active organization: 403 OrganizationRequired, at both", async () => {
          const jar = await signedIn("ada");
          await organization(ADA);
          for (const path of ["/contract/organization", "/contract/permission"])
            expect(await at(jar, path)).toMatchObject({ status: 403, body: { error: "OrganizationRequired" } });
        });

        it("a member without the permission is refused it; promoted, she has it at her next request; removed, she loses the organization at her next request", async () => {
          const acme = await organization(ADA, { [EVE]: "member" });
          const eve = await signedIn("eve");
          expect((await choose(eve, acme)).status).toBe(200);
          expect(await at(eve, "/contract/organization")).toEqual({
            status: 200,
            body: { id: EVE, organizationId: acme },
          });
          expect(await at(eve, "/contract/permission")).toMatchObject({ status: 403, body: { error: "Forbidden" } });
          expect((await served.orgs.setRole(ADA, acme, EVE, "admin")).ok).toBe(true);
          expect(await at(eve, "/contract/permission")).toEqual({
            status: 200,
            body: { id: EVE, organizationId: acme },
          });
          expect((await served.orgs.removeMember(ADA, acme, EVE)).ok).toBe(true);
          for (const path of ["/contract/organization", "/contract/permission"])
            expect(await at(eve, path)).toMatchObject({ status: 403, body: { error: "OrganizationRequired" } });
        });

        it("attack: choosing an organization one is not a member of, or one that does not exist, is the same 404 and chooses nothing", async () => {
          const theirs = await organization(EVE);
          const ada = await signedIn("ada");
          const answers = [];
          for (const id of [theirs, `${theirs.slice(0, -1)}${theirs.endsWith("0") ? "1" : "0"}`]) {
            const answer = await choose(ada, id);
            answers.push({ status: answer.status, body: await answer.json() });
          }
          expect(answers[0]).toMatchObject({ status: 404, body: { error: "OrganizationNotFound" } });
          expect(answers[1]).toEqual(answers[0]);
          expect(await at(ada, "/contract/organization")).toMatchObject({ status: 403 });
        });

        it("attack: another user's active-organization cookie, even for an organization both belong to, decides nothing", async () => {
          const shared = await organization(EVE, { [ADA]: "admin" });
          const evesOwn = await organization(EVE);
          const ada = await signedIn("ada");
          for (const id of [shared, evesOwn]) {
            const eve = await signedIn("eve");
            expect((await choose(eve, id)).status).toBe(200);
            const planted = eve.cookies.get(ACTIVE_ORGANIZATION_COOKIE);
            expect(planted, "the action set eve's cookie").toBeTruthy();
            const jar = ada.copy();
            jar.cookies.set(ACTIVE_ORGANIZATION_COOKIE, planted as string);
            for (const path of ["/contract/organization", "/contract/permission"])
              expect(await at(jar, path)).toMatchObject({ status: 403, body: { error: "OrganizationRequired" } });
          }
        });

        it("attack: a cookie a sibling sub-domain plants beside the browser's own (either order), or a forged one, decides nothing", async () => {
          const adas = await organization(ADA);
          const evesOwn = await organization(EVE);
          const ada = await signedIn("ada");
          expect((await choose(ada, adas)).status).toBe(200);
          const eve = await signedIn("eve");
          expect((await choose(eve, evesOwn)).status).toBe(200);
          const own = `${ACTIVE_ORGANIZATION_COOKIE}=${ada.cookies.get(ACTIVE_ORGANIZATION_COOKIE)}`;
          const planted = `${ACTIVE_ORGANIZATION_COOKIE}=${eve.cookies.get(ACTIVE_ORGANIZATION_COOKIE)}`;
          const session = `${SESSION_COOKIE}=${ada.cookies.get(SESSION_COOKIE)}`;
          const forged = `${ACTIVE_ORGANIZATION_COOKIE}=${Buffer.from(evesOwn).toString("base64url")}.${"A".repeat(43)}`;
          for (const cookie of [`${planted}; ${session}; ${own}`, `${session}; ${own}; ${planted}`]) {
            expect(await at(new ContractJar(), "/contract/permission", { cookie })).toMatchObject({
              status: 403,
              body: { error: "OrganizationRequired" },
            });
          }
          expect(
            await at(new ContractJar(), "/contract/organization", { cookie: `${session}; ${forged}` }),
          ).toMatchObject({ status: 403, body: { error: "OrganizationRequired" } });
          // Her own cookie alone still works: the refusals above were the planted cookies'.
          expect(await at(ada, "/contract/permission")).toEqual({
            status: 200,
            body: { id: ADA, organizationId: adas },
          });
        });

        it.runIf(driver.helpers?.switchOrganization)(
          "the package's server-side switch: the application's own page switches (the guard follows), another site's post is 403 and switches nothing",
          async () => {
            const acme = await organization(ADA);
            const ada = await signedIn("ada");
            const url = `${served.server.origin}/contract/switch-organization`;
            for (const headers of [
              { origin: "http://evil.example", "sec-fetch-site": "cross-site" },
              { origin: served.server.origin, "sec-fetch-site": "same-site" },
            ]) {
              expect((await ada.fetch(url, { form: { organizationId: acme }, headers })).status).toBe(403);
              expect(await at(ada, "/contract/organization")).toMatchObject({ status: 403 });
            }
            const sameOrigin = { origin: served.server.origin, "sec-fetch-site": "same-origin" };
            const other = await organization(EVE);
            const refused = await ada.fetch(url, { form: { organizationId: other }, headers: sameOrigin });
            expect(refused.status).toBe(404);
            expect(await refused.json()).toMatchObject({ error: "OrganizationNotFound" });
            const answer = await ada.fetch(url, { form: { organizationId: acme }, headers: sameOrigin });
            expect(answer.status).toBe(200);
            expect(await answer.json()).toEqual({ activeOrganization: { id: acme, role: "owner" } });
            expect(await at(ada, "/contract/permission")).toEqual({
              status: 200,
              body: { id: ADA, organizationId: acme },
            });
          },
        );
      });

    if (driver.apiKeyGuard)
      describe("rule: the API-key guard is core's, whatever the framework", () => {
        let served: Started;
        beforeAll(async () => {
          served = await start(driver.defaultMount);
        });
        const url = () => `${served.server.origin}/contract/api-key`;
        /** A new key of ada's (scope project:read unless told). */
        const keyOf = async (
          input: Parameters<ApiKeysApi["create"]>[1] = { name: "contract", scopes: ["project:read"] },
        ) => {
          const made = await served.keys.create(ADA, input);
          if (!made.ok) throw new Error(`the contract could not make a key: ${made.reason}`);
          return made.value;
        };
        const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
        const answer = async (headers: Record<string, string | string[]>) => {
          const got = await raw(url(), { headers });
          return {
            status: got.status,
            body: got.body ? (JSON.parse(got.body) as Record<string, unknown>) : null,
            headers: got.headers,
          };
        };

        it("honest: a key with the scope passes, its principal handed to the route (a user's and an organization's)", async () => {
          const { key, record } = await keyOf();
          expect(await answer(bearer(key))).toMatchObject({
            status: 200,
            body: { id: record.id, owner: { type: "user", id: ADA } },
          });
          const created = await served.orgs.create(ADA, {
            name: "Keys",
            slug: `keys-${randomBytes(4).toString("hex")}`,
          });
          if (!created.ok) throw new Error(created.reason);
          const org = await keyOf({ name: "ci", scopes: ["project:read"], organizationId: created.value.id });
          expect(await answer({ "x-api-key": org.key })).toMatchObject({
            status: 200,
            body: { id: org.record.id, owner: { type: "organization", id: created.value.id } },
          });
        });

        it("no key: 401 with a Bearer challenge and no error (RFC 6750 §3.1), never cached", async () => {
          const got = await answer({});
          expect(got.status).toBe(401);
          expect(String(got.headers["www-authenticate"])).toMatch(/^Bearer /);
          expect(String(got.headers["www-authenticate"])).not.toMatch(/error=/);
          expect(String(got.headers["cache-control"])).toMatch(/no-store/);
        });

        it("attack: malformed — two different keys, a Bearer value of two tokens, a key of 10 kB — is 400 invalid_request", async () => {
          const { key } = await keyOf();
          for (const headers of [
            { ...bearer(key), "x-api-key": `${key.slice(0, -1)}x` },
            { authorization: `Bearer ${key} ${key}` },
            bearer(`lk_0123456789abcdef_${"A".repeat(10_000)}`),
          ])
            expect(await answer(headers)).toMatchObject({ status: 400, body: { error: "invalid_request" } });
        });

        it("attack: a wrong secret, a revoked key, an expired key are one 401 invalid_token, alike", async () => {
          const { key } = await keyOf();
          const last = key.at(-1) === "A" ? "B" : "A";
          const wrong = await answer(bearer(`${key.slice(0, -1)}${last}`));
          expect(wrong).toMatchObject({ status: 401, body: { error: "invalid_token" } });
          const revoked = await keyOf();
          expect((await answer(bearer(revoked.key))).status).toBe(200);
          // Revoked through another instance of the application over the same store: refused at once here.
          expect((await served.otherKeys.revoke(ADA, revoked.record.id)).ok).toBe(true);
          const afterRevocation = await answer(bearer(revoked.key));
          const expiring = await keyOf({ name: "brief", scopes: ["project:read"], expiresIn: 0.001 });
          const expiresAt = expiring.record.expiresAt?.getTime() ?? 0;
          await untilTrue(async () => Date.now() > expiresAt);
          const expired = await answer(bearer(expiring.key));
          for (const refused of [afterRevocation, expired]) {
            expect(refused.status).toBe(401);
            expect(refused.body).toEqual(wrong.body);
          }
        });

        it("attack: a key without the route's scope is 403 insufficient_scope", async () => {
          const { key } = await keyOf({ name: "writer", scopes: ["project:write"] });
          expect(await answer(bearer(key))).toMatchObject({ status: 403, body: { error: "insufficient_scope" } });
        });

        it("attack: a header sent twice is never 'the first wins' where the framework shows it", async () => {
          const { key } = await keyOf();
          const other = (await keyOf()).key;
          // Node.js joins a repeated X-API-Key into one value: malformed in every framework.
          expect(await answer({ "x-api-key": [key, other] })).toMatchObject({ status: 400 });
          expect(await answer({ "x-api-key": [key, key] })).toMatchObject({ status: 400 });
          const twice = await answer({ authorization: [`Bearer ${key}`, `Bearer ${other}`] });
          if (driver.seesRepeatedAuthorization) expect(twice).toMatchObject({ status: 400 });
          // Node.js's `headers` keep the first Authorization only: the framework hands nothing else on.
          else expect(twice).toMatchObject({ status: 200 });
        });

        it("attack: 15 requests at once on a key limited to 5 let exactly 5 through: each request counted once", async () => {
          const { key } = await keyOf({
            name: "limited",
            scopes: ["project:read"],
            rateLimit: { max: 5, windowSeconds: 3600 },
          });
          const answers = await Promise.all(Array.from({ length: 15 }, () => answer(bearer(key))));
          const statuses = answers.map((a) => a.status).sort();
          expect(statuses).toEqual([...Array(5).fill(200), ...Array(10).fill(429)]);
          for (const limited of answers.filter((a) => a.status === 429))
            expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
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
