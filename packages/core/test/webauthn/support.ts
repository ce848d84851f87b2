import type { AuthConfig } from "../../src/index.js";
import { createMemoryStore, MemoryAdapter } from "../../src/memory-adapter.js";
import Passkey from "../../src/providers/passkey.js";
import { CookieJar, call, csrfToken, makeConfig, ORIGIN, recordingLogger } from "../helpers.js";
import type { CredentialJSON } from "./soft-authenticator.js";

export { CookieJar, ORIGIN };
export const CHALLENGE_COOKIE = "authjs.challenge";
export const SESSION_COOKIE = "authjs.session-token";
/** The browser binding cookie (lib/flows/binding.ts) on http. */
export const BINDING_COOKIE = "authjs.binding";

/** A Passkey configuration over a fresh memory store, recording events and logs. */
export function setup(overrides: Partial<AuthConfig> = {}) {
  const store = createMemoryStore();
  const adapter = MemoryAdapter(store);
  const log = recordingLogger();
  const events: Record<string, unknown[]> = { createUser: [], linkAccount: [], signIn: [] };
  const config = makeConfig({
    adapter,
    experimental: { enableWebAuthn: true },
    providers: [Passkey()],
    logger: log.logger,
    events: {
      createUser: (m) => void events.createUser?.push(m),
      linkAccount: (m) => void events.linkAccount?.push(m),
      signIn: (m) => void events.signIn?.push(m),
    },
    ...overrides,
  });
  return { store, adapter, config, events, log };
}

export interface OptionsAnswer {
  status: number;
  body: { action: "authenticate" | "register"; options: Record<string, unknown> & { challenge: string } };
  setCookie: string[];
}

/** `GET /auth/webauthn-options/<provider>?...` into the jar. */
export async function getOptions(
  config: AuthConfig,
  jar: CookieJar,
  query: Record<string, string> = {},
  provider = "passkey",
): Promise<OptionsAnswer> {
  const qs = new URLSearchParams(query).toString();
  const response = await call(config, `/auth/webauthn-options/${provider}${qs ? `?${qs}` : ""}`, { jar });
  return {
    status: response.status,
    body: (await response.json()) as OptionsAnswer["body"],
    setCookie: response.headers.getSetCookie(),
  };
}

/** Posts a credential to the provider's callback, CSRF token included; returns the response. */
export async function postCredential(
  config: AuthConfig,
  jar: CookieJar,
  action: string,
  credential: CredentialJSON | string,
  extra: Record<string, string> = {},
  provider = "passkey",
): Promise<Response> {
  const token = await csrfToken(config, jar);
  return call(config, `/auth/callback/${provider}`, {
    jar,
    form: {
      csrfToken: token,
      action,
      data: typeof credential === "string" ? credential : JSON.stringify(credential),
      ...extra,
    },
  });
}

/** The `error` value of a redirect to the sign-in page, or null. */
export function errorOf(response: Response): string | null {
  const location = response.headers.get("location");
  return location ? new URL(location).searchParams.get("error") : null;
}

/** The session the jar holds, as `GET /auth/session` returns it. */
export async function sessionOf(config: AuthConfig, jar: CookieJar): Promise<{ user?: { email?: string } } | null> {
  return (await call(config, "/auth/session", { jar })).json() as Promise<{ user?: { email?: string } } | null>;
}
