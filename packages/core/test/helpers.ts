import { randomBytes } from "node:crypto";
import { beforeEach } from "vitest";
import { Auth, type AuthConfig } from "../src/index.js";
import Credentials from "../src/providers/credentials.js";

/** A fresh secret (at least 32 characters) named after `prefix`. */
export function testSecret(prefix: string): string {
  return `${prefix}-secret-${randomBytes(16).toString("hex")}`;
}

/**
 * A secret of its own for each test. Latchkey keeps rate limits, revocations and caches per
 * application, and an application is known by its secret (src/lib/base/application.ts): tests sharing
 * one constant would share counters. `SECRET` is reassigned before each test (importers read the
 * live binding); a configuration made before the tests run (at collection, in `beforeAll`) keeps
 * the first value, as all the tests using it are then one application anyway.
 */
export let SECRET = testSecret("test");
beforeEach(() => {
  SECRET = testSecret("test");
});
export const ORIGIN = "http://localhost:3000";

/** A credentials provider that accepts user "ada" with password "lovelace". */
export function demoCredentials(overrides: Parameters<typeof Credentials>[0] = {}) {
  return Credentials({
    credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
    authorize: async (c) =>
      c.username === "ada" && c.password === "lovelace"
        ? { id: "u1", name: "Ada Lovelace", email: "ada@example.com", image: "https://img.example/ada.png" }
        : null,
    ...overrides,
  });
}

export function makeConfig(overrides: Partial<AuthConfig> = {}): AuthConfig {
  return { secret: SECRET, trustHost: true, providers: [demoCredentials()], ...overrides };
}

/** A browser-like cookie jar: applies Set-Cookie headers (including deletions), sends Cookie. */
export class CookieJar {
  readonly cookies = new Map<string, string>();
  apply(response: Response): this {
    for (const header of response.headers.getSetCookie()) {
      const [pair, ...attributes] = header.split(";");
      const eq = (pair as string).indexOf("=");
      const name = (pair as string).slice(0, eq).trim();
      const value = (pair as string).slice(eq + 1).trim();
      const expired =
        attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) ||
        attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return this;
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  get(name: string): string | undefined {
    return this.cookies.get(name);
  }
}

export interface Call {
  method?: "GET" | "POST" | string;
  form?: Record<string, string>;
  json?: unknown;
  headers?: Record<string, string>;
  jar?: CookieJar;
  origin?: string;
}

/** Sends one request through `Auth` in process; applies the response's cookies to the jar. */
export async function call(config: AuthConfig, path: string, options: Call = {}): Promise<Response> {
  const headers = new Headers(options.headers);
  if (options.jar?.cookies.size) headers.set("cookie", options.jar.header());
  let body: string | undefined;
  if (options.form) {
    headers.set("content-type", "application/x-www-form-urlencoded");
    body = new URLSearchParams(options.form).toString();
  } else if (options.json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(options.json);
  }
  const response = await Auth(
    new Request(`${options.origin ?? ORIGIN}${path}`, {
      method: options.method ?? (body ? "POST" : "GET"),
      headers,
      body,
    }),
    config,
  );
  options.jar?.apply(response);
  return response;
}

/** Gets a CSRF token into the jar and returns it. */
export async function csrfToken(config: AuthConfig, jar: CookieJar, origin = ORIGIN): Promise<string> {
  const response = await call(config, "/auth/csrf", { jar, origin });
  return ((await response.json()) as { csrfToken: string }).csrfToken;
}

/** Signs "ada" in with credentials; returns the jar holding the session. */
export async function signIn(
  config: AuthConfig,
  jar = new CookieJar(),
  form: Record<string, string> = {},
): Promise<{ jar: CookieJar; response: Response }> {
  const token = await csrfToken(config, jar);
  const response = await call(config, "/auth/callback/credentials", {
    jar,
    form: { csrfToken: token, username: "ada", password: "lovelace", ...form },
  });
  return { jar, response };
}

/** Silences the default console logger of a config and records what it logged. */
export function recordingLogger() {
  const errors: Error[] = [];
  const warnings: string[] = [];
  return {
    errors,
    warnings,
    logger: { error: (e: Error) => errors.push(e), warn: (c: string) => warnings.push(c), debug: () => {} },
  };
}
