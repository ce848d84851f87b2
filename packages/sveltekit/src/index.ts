/**
 * Latchkey for SvelteKit 2, in the shape of `@auth/sveltekit`: `SvelteKitAuth(config)` gives the
 * `handle` hook (the actions under `/auth`, and `event.locals.auth()` on every request) and the
 * `signIn` and `signOut` form actions. The environment is SvelteKit's `$env/dynamic/private`
 * (`AUTH_SECRET`, `AUTH_URL`, `AUTH_<PROVIDER>_ID` and `_SECRET`).
 *
 * @example
 * ```ts
 * // src/hooks.server.ts
 * import { SvelteKitAuth } from "@latchkey/sveltekit"
 * import GitHub from "@latchkey/sveltekit/providers/github"
 * export const { handle, signIn, signOut } = SvelteKitAuth({ providers: [GitHub] })
 * ```
 * @module @latchkey/sveltekit
 */

import type { AuthConfig, Session } from "@latchkey/core";
import type { ApiKeyPrincipal } from "@latchkey/core/api-keys";
import {
  beginServerCall,
  type CheckedServerCall,
  encodeCookieValue,
  formFields,
  type GuardOptions,
  guard,
  serve,
  serverSignIn,
  serverSignOut,
  serverSwitchOrganization,
  sessionReadOf,
  shellConfig,
  toResponse,
  webIncoming,
} from "@latchkey/core/internal";
import { type Action, error, fail, type Handle, type RequestEvent, redirect } from "@sveltejs/kit";

export { customFetch, skipCSRFCheck } from "@latchkey/core";
export * from "@latchkey/core/errors";
export type * from "@latchkey/core/types";
export { requireApiKey } from "./api-keys.js";

declare global {
  namespace App {
    interface Locals {
      /** The session of the request, or null (set by Latchkey's `handle`). */
      auth(): Promise<Session | null>;
      /** The verified API key's principal, set by `requireApiKey` when the key is accepted. */
      apiKey?: ApiKeyPrincipal;
    }
  }
}

/** Latchkey's configuration; `basePath` defaults to `/auth`. */
export type SvelteKitAuthConfig = AuthConfig;

export interface SvelteKitAuthResult {
  /** The hook serving `<basePath>/*` and setting `event.locals.auth()`. */
  handle: Handle;
  /** A form action: signs in with the form's `providerId` and its other fields, then redirects. */
  signIn: Action;
  /** A form action: signs out, then redirects to the form's `redirectTo` (else the page it came from). */
  signOut: Action;
  /**
   * A form action: makes the form's `organizationId` the active organization (empty clears it),
   * after the store confirms the membership. Answers `{ activeOrganization }`, or `fail(status,
   * { error, message })`: 400 `InvalidOrganization`, 401 `SessionRequired`, 404
   * `OrganizationNotFound` (also for an organization that does not exist).
   */
  switchOrganization: Action;
  /**
   * The guard of a `load` function, a form action, an endpoint or `handle`: the session when the
   * request is signed in with what `options` demand (`organization`, `role`, `permission`,
   * `factors`, `amr`), decided by core's `requireAuth`. Otherwise it throws SvelteKit's answer: a
   * browser without a session is redirected (303) to sign in with this URL as `callbackUrl`,
   * another client gets `error(401)`; no active organization, a role or permission it lacks, or a
   * missing factor is `error(403, { message, error })` (`OrganizationRequired`, `Forbidden`,
   * `SecondFactorRequired`).
   */
  requireAuth(event: RequestEvent, options?: GuardOptions): Promise<Session>;
}

/**
 * SvelteKit's private environment, loaded at the first request: imported lazily, so that the
 * package (its types, its error classes) also loads outside a Vite build, where `$env` is unknown.
 */
let privateEnv: Promise<Record<string, string | undefined>> | undefined;
const environment = () => (privateEnv ??= import("$env/dynamic/private").then((m) => m.env));

/**
 * Where a request arrived: the URL SvelteKit built, which its adapter decides (adapter-node's
 * `ORIGIN`, or `Host`, or the `PROTOCOL_HEADER` / `HOST_HEADER` it is told to read), so Latchkey's
 * `trustProxy` is not applied again.
 */
function arrival(event: RequestEvent) {
  return { protocol: event.url.protocol, host: event.url.host, arrivalDecided: true };
}

/** The peer's address, when the adapter knows it. */
function peer(event: RequestEvent): string | undefined {
  try {
    return event.getClientAddress();
  } catch {
    return undefined; // an adapter without addresses: the client counts as unknown
  }
}

/**
 * Latchkey for a SvelteKit application: `config`, or a function of the request giving it (for a
 * configuration that depends on `event.platform`, say).
 *
 * @example
 * ```ts
 * // src/hooks.server.ts
 * export const { handle, signIn, signOut } = SvelteKitAuth({ providers: [Credentials({ ... })] })
 * // src/routes/login/+page.server.ts
 * import { signIn } from "../../hooks.server"
 * export const actions = { default: signIn }
 * ```
 */
export function SvelteKitAuth(
  config: SvelteKitAuthConfig | ((event: RequestEvent) => SvelteKitAuthConfig | Promise<SvelteKitAuthConfig>),
): SvelteKitAuthResult {
  async function configOf(event: RequestEvent): Promise<AuthConfig> {
    // The application's own object, or one copy of it with the base path defaulted: the core keeps
    // limits, revocations and caches per application (by its secrets), so both are one application.
    return shellConfig(typeof config === "function" ? await config(event) : config, { basePath: "/auth" });
  }

  /** A checked server-side call of the event, its cookies set through `event.cookies`. */
  async function callOf(event: RequestEvent): Promise<CheckedServerCall> {
    return beginServerCall({
      config: await configOf(event),
      env: await environment(),
      headers: event.request.headers,
      where: arrival(event),
      clientIp: peer(event),
      deliver(cookies) {
        // Latchkey's one encoding, as every other shell writes them. Written as they were (an
        // identity encoder), a ";" in a value (a same-origin Referer as the callback URL) wrote
        // the cookie's attributes.
        for (const { name, value, options } of cookies)
          event.cookies.set(name, value, { ...options, path: options?.path ?? "/", encode: encodeCookieValue });
      },
    });
  }

  return {
    async handle({ event, resolve }) {
      const c = await configOf(event);
      const env = await environment();
      const request = event.request;
      const cookieHeader = request.headers.get("cookie");
      // The one session read; a cookie that is not a live session is cleared on the response.
      event.locals.auth = async () => {
        const read = await sessionReadOf({ ...arrival(event), cookieHeader }, c, { env, reissue: false });
        for (const { name, value, options } of read.cookies)
          event.cookies.set(name, value, { ...options, path: options?.path ?? "/", encode: encodeCookieValue });
        return read.session;
      };
      const { pathname } = event.url;
      if (pathname !== c.basePath && !pathname.startsWith(`${c.basePath}/`)) return resolve(event);
      const incoming = webIncoming(request, c, { where: arrival(event), url: event.url, peer: peer(event) });
      return toResponse(await serve(incoming, c, { env }));
    },
    async signIn(event) {
      const call = await callOf(event);
      const { providerId, ...fields } = formFields(await event.request.formData());
      const provider = typeof providerId === "string" && providerId ? providerId : undefined;
      redirect(303, await serverSignIn(call, provider, fields));
    },
    async signOut(event) {
      const call = await callOf(event);
      const { redirectTo, csrfToken } = formFields(await event.request.formData());
      redirect(303, await serverSignOut(call, redirectTo, csrfToken));
    },
    async switchOrganization(event) {
      const call = await callOf(event);
      const { organizationId, csrfToken } = formFields(await event.request.formData());
      const switched = await serverSwitchOrganization(call, organizationId, csrfToken);
      if (!switched.ok) return fail(switched.status, { error: switched.error, message: switched.message });
      return { activeOrganization: switched.activeOrganization };
    },
    async requireAuth(event, options = {}) {
      const check = guard(await configOf(event), options);
      const request = event.request;
      const result = await check(
        {
          ...arrival(event),
          cookieHeader: request.headers.get("cookie"),
          accept: request.headers.get("accept"),
          url: `${event.url.pathname}${event.url.search}`,
        },
        { env: await environment() },
      );
      if (result.session) return result.session;
      const answer = result.response;
      for (const { name, value, options: o } of answer.cookies ?? [])
        event.cookies.set(name, value, { ...o, path: o?.path ?? "/", encode: encodeCookieValue });
      if (answer.redirect) redirect(303, answer.redirect);
      const body = (answer.body ?? {}) as { error?: string; message?: string };
      error(answer.status ?? 403, { message: body.message ?? "Forbidden", error: body.error } as App.Error);
    },
  };
}
