/**
 * Sign-in with WebAuthn credentials (security keys, platform authenticators, passkeys).
 * **Experimental**: turn it on with `experimental: { enableWebAuthn: true }`, configure an adapter
 * that stores authenticators, and install the optional peer `@simplewebauthn/server` (v13; v9, which
 * `next-auth` v5 applications have, works too).
 *
 * @example
 * ```ts
 * import WebAuthn from "@latchkey/core/providers/webauthn"
 * Auth(request, {
 *   adapter,
 *   experimental: { enableWebAuthn: true },
 *   providers: [WebAuthn({ relyingParty: { name: "My App" } })],
 * })
 * ```
 * @module providers/webauthn
 */

import { MissingAdapter } from "../lib/base/errors.js";
import { defaultRelyingPartyMark, simpleWebAuthnLoader } from "../lib/base/symbols.js";
import { MAX_ADDRESS_LENGTH } from "../lib/email/identifier.js";
import type { Adapter, AdapterUser } from "../shapes/adapters.js";
import type { Awaitable, User } from "../shapes/data.js";
import type { CredentialInput } from "./credentials.js";

/** What a `webauthn-options` request asks for, and what a callback completes. */
export type WebAuthnAction = "authenticate" | "register";

/** The relying party (the application) that credentials are bound to. */
export interface RelyingParty {
  /** The RP ID: the domain credentials are scoped to, e.g. `example.com`. */
  id: string;
  /** The name authenticators show to the user. */
  name: string;
  /** The origin the browser reports, e.g. `https://example.com`. */
  origin: string;
}

/**
 * Relying-party options. Each value may be a list; the first entry is used to create options,
 * and every entry is accepted when a response is verified (an RP ID or origin moving).
 * Unset values come from the request's URL: `id` = host name, `name` = host, `origin` = origin.
 */
export type RelyingPartyOptions = { [K in keyof RelyingParty]?: string | string[] };

/** The request, as `getUserInfo` sees it (the same fields Auth.js hands it). */
export interface WebAuthnUserInfoRequest {
  method: "GET" | "POST";
  url: URL;
  query: Record<string, string>;
  body?: Record<string, unknown>;
  headers: { get(name: string): string | null };
}

/**
 * Who a `webauthn-options` request is about: a stored user (`exists: true`, may authenticate
 * with their passkeys) or a new one (`exists: false`, may register). `null`: nobody in
 * particular (authentication with any discoverable credential).
 */
export type WebAuthnUserInfo =
  | { user: AdapterUser; exists: true }
  | { user: Omit<User, "id"> & { email: string }; exists: false };

/** Finds the user a `webauthn-options` request is about, from its fields (`email` by default). */
export type GetUserInfo = (
  options: { adapter: Adapter; provider: WebAuthnConfig },
  request: WebAuthnUserInfoRequest,
) => Awaitable<WebAuthnUserInfo | null>;

/** Options passed on to `generateAuthenticationOptions` of `@simplewebauthn/server`. */
export interface AuthenticationOptions {
  /** Milliseconds the user has. @default 300000 */
  timeout?: number;
  /** @default "preferred" */
  userVerification?: "required" | "preferred" | "discouraged";
  extensions?: Record<string, unknown>;
}

/** Options passed on to `generateRegistrationOptions` of `@simplewebauthn/server`. */
export interface RegistrationOptions {
  /** Milliseconds the user has. @default 300000 */
  timeout?: number;
  /** @default "none" */
  attestationType?: "direct" | "enterprise" | "none";
  authenticatorSelection?: {
    authenticatorAttachment?: "platform" | "cross-platform";
    residentKey?: "required" | "preferred" | "discouraged";
    requireResidentKey?: boolean;
    userVerification?: "required" | "preferred" | "discouraged";
  };
  extensions?: Record<string, unknown>;
  /** COSE algorithm ids. @default [-8, -7, -257] */
  supportedAlgorithmIDs?: number[];
  preferredAuthenticatorType?: "securityKey" | "localDevice" | "remoteDevice";
}

/** Options passed on to `verifyAuthenticationResponse`. */
export interface VerifyAuthenticationOptions {
  /** @default true */
  requireUserVerification?: boolean;
}

/** Options passed on to `verifyRegistrationResponse`. */
export interface VerifyRegistrationOptions {
  /** @default true */
  requireUserPresence?: boolean;
  /** @default true */
  requireUserVerification?: boolean;
  supportedAlgorithmIDs?: number[];
}

/**
 * The four functions of `@simplewebauthn/server` Latchkey calls, typed loosely so the optional
 * peer's types are not needed to compile against Latchkey.
 */
export interface SimpleWebAuthnServer {
  generateAuthenticationOptions(options: never): Promise<unknown>;
  generateRegistrationOptions(options: never): Promise<unknown>;
  verifyAuthenticationResponse(options: never): Promise<unknown>;
  verifyRegistrationResponse(options: never): Promise<unknown>;
}

/** The request `getRelayingParty` receives (the fields of Auth.js's internal request). */
export interface RelyingPartyRequest {
  method: string;
  url: URL;
  query: Record<string, string>;
  body?: Record<string, unknown>;
  /** Read with `get(name)`, as a `Headers`. */
  headers: { get(name: string): string | null };
  /** `"webauthn-options"` or `"callback"`. */
  action?: string;
  providerId?: string;
  cookies?: Record<string, string>;
}

/**
 * Picks the relying party of a request (see {@link WebAuthnConfig.getRelayingParty}). `provider`
 * is the provider as configured (its `relyingParty` / `relayingParty` as given, options merged),
 * `url` the URL of the auth actions.
 */
export type GetRelayingParty = (
  options: {
    provider: Pick<WebAuthnConfig, "relyingParty" | "relayingParty"> & Partial<Omit<WebAuthnConfig, "options">>;
    url: URL;
  },
  request: RelyingPartyRequest,
) => RelyingParty;

/** A WebAuthn provider (spec §1.1, experimental). */
export interface WebAuthnConfig {
  id: string;
  name: string;
  type: "webauthn";
  /** The relying party; unset values come from the request's URL. */
  relyingParty?: RelyingPartyOptions;
  /** Auth.js's spelling of `relyingParty`, accepted so configurations carry over. */
  relayingParty?: RelyingPartyOptions;
  /**
   * Picks the relying party per request (a multi-domain application), as in Auth.js. Called with
   * the provider and the URL of the actions, and the request; it must return `id`, `name` and
   * `origin` strings. When absent: the first configured value of each, else the request's URL.
   *
   * @example
   * ```ts
   * getRelayingParty: (_options, request) => {
   *   const host = request.url.hostname // one of the domains the application serves
   *   return { id: host, name: "Example", origin: `https://${host}` }
   * }
   * ```
   */
  getRelayingParty?: GetRelayingParty;
  /**
   * Offer the passkeys of this provider in the browser's autofill (conditional UI). One provider
   * at most; a form field needs `autocomplete` containing `webauthn`. @default true
   */
  enableConditionalUI: boolean;
  /** The fields of the built-in form, sent to `getUserInfo`. @default an `email` field */
  formFields: Record<string, CredentialInput>;
  /** Finds the user a request is about. @default looks `email` up with `adapter.getUserByEmail` */
  getUserInfo: GetUserInfo;
  authenticationOptions?: AuthenticationOptions;
  /**
   * List the named user's credential IDs in `allowCredentials` of the authentication options (as
   * Auth.js does). Off by default: the list tells anyone who asks whether an address has an
   * account, and which passkeys it has. Without it the options are the same for every address and
   * the browser offers its discoverable credentials (passkeys). Turn it on only for authenticators
   * that cannot store discoverable credentials (older security keys). @default false
   *
   * @example
   * ```ts
   * WebAuthn({ listCredentials: true }) // reveals whether an address has an account
   * ```
   */
  listCredentials?: boolean;
  registrationOptions?: RegistrationOptions;
  verifyAuthenticationOptions?: VerifyAuthenticationOptions;
  verifyRegistrationOptions?: VerifyRegistrationOptions;
  /** The `@simplewebauthn/server` functions to use. @default the installed package, loaded on first use */
  simpleWebAuthn?: SimpleWebAuthnServer;
  /** Loads the installed `@simplewebauthn/server` (set by the factories: only their module imports it). */
  [simpleWebAuthnLoader]?: () => Promise<unknown>;
  options?: WebAuthnUserConfig;
}

/** What a caller may set on a WebAuthn provider. */
export type WebAuthnUserConfig = Partial<Omit<WebAuthnConfig, "type" | "options">>;

/**
 * A provider made by `WebAuthn()` or `Passkey()`: it always carries a `getRelayingParty`, the one
 * given in its options or `defaultGetRelayingParty`.
 */
export type WebAuthnProvider = WebAuthnConfig & { getRelayingParty: GetRelayingParty };

/** The first of a configured value or list of values; undefined for none (or an empty list). */
function firstOf(value: string | readonly string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : (value as string | undefined);
}

/**
 * The `getRelayingParty` every `WebAuthn()` and `Passkey()` provider carries, with Auth.js's
 * semantics: the first configured `id`, `name` and `origin` (either spelling, `relyingParty` or
 * Auth.js's `relayingParty`), and where one is not configured the URL of the auth actions: its
 * host name as `id`, its host as `name`, its origin as `origin`. Latchkey calls it only when you
 * replace it; left as it is, Latchkey also accepts, when verifying a response, every configured
 * `id` and `origin` of a list (moving to a new domain), which one answer cannot say.
 *
 * @example
 * ```ts
 * Passkey().getRelayingParty({ provider: Passkey(), url: new URL("https://app.example/auth") }, request)
 * // { id: "app.example", name: "app.example", origin: "https://app.example" }
 * ```
 */
export const defaultGetRelayingParty: GetRelayingParty = ({ provider, url }) => {
  // A provider as the factory made it keeps the caller's values under `options` (merged over the
  // defaults when the configuration is resolved): read them there too, as that merge would.
  const { options } = provider as { options?: WebAuthnUserConfig };
  const configured = {
    ...provider.relayingParty,
    ...provider.relyingParty,
    ...options?.relayingParty,
    ...options?.relyingParty,
  };
  return {
    id: firstOf(configured.id) ?? url.hostname,
    name: firstOf(configured.name) ?? url.host,
    origin: firstOf(configured.origin) ?? url.origin,
  };
};
Object.defineProperty(defaultGetRelayingParty, defaultRelyingPartyMark, { value: true });

/** Five minutes, as Auth.js gives the user. */
export const DEFAULT_WEBAUTHN_TIMEOUT = 5 * 60 * 1000;

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/**
 * The default `getUserInfo`: the `email` field (query of the options request, body of a POST)
 * names the user; a stored user with that address `exists`, any other address is a new user.
 *
 * @example
 * ```ts
 * await defaultGetUserInfo({ adapter, provider }, { method: "GET", query: { email: "ada@example.com" }, ... })
 * // → { user: { id: "u1", email: "ada@example.com", ... }, exists: true }
 * ```
 */
export const defaultGetUserInfo: GetUserInfo = async ({ adapter }, request) => {
  if (typeof adapter.getUserByEmail !== "function")
    throw new MissingAdapter("The WebAuthn provider needs an adapter with `getUserByEmail`");
  const raw = request.method === "POST" ? request.body?.email : request.query.email;
  // A NUL or line break would make a second, look-alike spelling of somebody's address.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused here
  if (typeof raw !== "string" || /[\u0000-\u001f\u007f]/.test(raw)) return null;
  const email = raw.trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > MAX_ADDRESS_LENGTH) return null;
  const existing = await adapter.getUserByEmail(email);
  return existing ? { user: existing, exists: true } : { user: { email }, exists: false };
};

/**
 * Makes a WebAuthn provider. Its default id is `webauthn`. The credentials it registers may be
 * discoverable or not; for passkeys (discoverable, user-verified) use `Passkey`.
 *
 * @example
 * ```ts
 * WebAuthn({ relyingParty: { id: "example.com", name: "Example", origin: "https://example.com" } })
 * ```
 */
export default function WebAuthn(options: WebAuthnUserConfig = {}): WebAuthnProvider {
  return {
    id: "webauthn",
    name: "WebAuthn",
    type: "webauthn",
    // The application's own, as Auth.js's factory carries it: callers (and Auth.js's tests) call
    // `provider.getRelayingParty(...)` on what the factory made.
    getRelayingParty: options.getRelayingParty ?? defaultGetRelayingParty,
    enableConditionalUI: true,
    formFields: { email: { label: "Email", type: "email", required: true, autocomplete: "username webauthn" } },
    getUserInfo: defaultGetUserInfo,
    authenticationOptions: { timeout: DEFAULT_WEBAUTHN_TIMEOUT },
    registrationOptions: { timeout: DEFAULT_WEBAUTHN_TIMEOUT },
    [simpleWebAuthnLoader]: () => import("@simplewebauthn/server"),
    options,
  };
}
