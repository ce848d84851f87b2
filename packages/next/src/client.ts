/**
 * The browser side of Latchkey for Next.js, without React: the session store that every
 * `useSession` shares, and `signIn`, `signOut`, `getSession`, `getCsrfToken`, `getProviders`.
 * Every request goes to the application's own `<basePath>/*` (relative URLs in the browser):
 * nothing is asked of any other origin. Other tabs hear of a sign-out or a session change on a
 * `BroadcastChannel` (or, where there is none, a `storage` event) and fetch their session again.
 *
 * @module @latchkey/next/client
 */
import type { Session } from "@latchkey/core/types";

/** A provider as `GET <basePath>/providers` lists it. */
export interface ClientSafeProvider {
  id: string;
  name: string;
  type: string;
  signinUrl: string;
  callbackUrl: string;
}

export type SignInAuthorizationParams = string[][] | Record<string, string> | string | URLSearchParams;

/** Options of the browser's `signIn`. */
export type SignInOptions<R extends boolean = true> = Record<string, unknown> & {
  /** Where to go after signing in; the current page by default. */
  redirectTo?: string;
  /** @deprecated `redirectTo` */
  callbackUrl?: string;
  /** `false`: stay on the page and get a `SignInResponse` (credentials and email). */
  redirect?: R;
};

/** What `signIn(..., { redirect: false })` answers. */
export interface SignInResponse {
  /** The error type (`CredentialsSignin`, ...), if the sign-in failed. */
  error: string | undefined;
  /** The `code` of a `CredentialsSignin` failure. */
  code: string | undefined;
  status: number;
  ok: boolean;
  /** Where the sign-in would have gone; null on error. */
  url: string | null;
}

/** Options of the browser's `signOut`. */
export interface SignOutParams<R extends boolean = true> {
  redirectTo?: string;
  /** @deprecated `redirectTo` */
  callbackUrl?: string;
  redirect?: R;
}

/** What `signOut({ redirect: false })` answers. */
export interface SignOutResponse {
  url: string;
  /**
   * Set when the session did not end (`"SignOutError"`: the server's store did not confirm it);
   * the session then still shows, and signing out again is safe. Absent on success.
   */
  error?: string;
}

type Listener = () => void;

/** The one session of this page, shared by every `useSession` and the functions below. */
const store = {
  basePath: "/api/auth",
  /** `undefined` until known, then the session or null. */
  session: undefined as Session | null | undefined,
  updating: false,
  inflight: undefined as Promise<Session | null> | undefined,
  listeners: new Set<Listener>(),
};

const CHANNEL = "latchkey.session";

function env(name: string): string | undefined {
  return typeof process !== "undefined" ? process.env?.[name] : undefined;
}

/** The URL of an action: relative in the browser; on a server, from `AUTH_URL` / `NEXTAUTH_URL`. */
export function actionUrl(action: string): string {
  const path = `${store.basePath}/${action}`;
  if (typeof window !== "undefined") return path;
  const base = env("AUTH_URL") ?? env("NEXTAUTH_URL_INTERNAL") ?? env("NEXTAUTH_URL");
  if (!base)
    throw new Error(
      "@latchkey/next/react: on a server, set AUTH_URL to the application's URL (or call auth() from @latchkey/next instead).",
    );
  return `${new URL(base).origin}${path}`;
}

/**
 * Sets where the actions are (the `basePath` of `NextAuth`, `/api/auth` by default). Called by
 * `SessionProvider`; call it yourself when using these functions without React.
 *
 * @example
 * ```ts
 * configureClient({ basePath: "/auth" })
 * ```
 */
export function configureClient(options: { basePath?: string }): void {
  const basePath = options.basePath?.replace(/\/+$/, "");
  if (!basePath || basePath === store.basePath) return;
  store.basePath = basePath;
  takeSnapshot();
}

async function getJson<T>(action: string, init?: RequestInit): Promise<T | null> {
  try {
    const res = await fetch(actionUrl(action), { ...init, headers: { ...init?.headers }, cache: "no-store" });
    const data = (await res.json()) as T;
    if (!res.ok) return null;
    return data;
  } catch (e) {
    console.error(`[latchkey] ${action}:`, e);
    return null;
  }
}

type Snapshot = { session: Session | null | undefined; updating: boolean; basePath: string };

let snapshot: Snapshot = { session: undefined, updating: false, basePath: store.basePath };

function takeSnapshot(): void {
  snapshot = { session: store.session, updating: store.updating, basePath: store.basePath };
}

function notify(): void {
  takeSnapshot();
  for (const listener of store.listeners) listener();
}

let channel: BroadcastChannel | null | undefined;

/** This page's channel to the application's other tabs (null where there is none). */
function tabs(): BroadcastChannel | null {
  if (channel !== undefined) return channel;
  channel = typeof BroadcastChannel === "function" ? new BroadcastChannel(CHANNEL) : null;
  return channel;
}

/** Tells the other tabs that the session changed (`trigger`: "signout", "update", "getSession"). */
function broadcast(trigger: string): void {
  const message = { event: "session", data: { trigger }, at: Date.now() };
  const ch = tabs();
  if (ch) ch.postMessage(message);
  else if (typeof localStorage !== "undefined") {
    try {
      localStorage.setItem(CHANNEL, JSON.stringify(message));
    } catch {
      // storage may be unavailable (private mode quotas): the other tabs refetch on focus instead
    }
  }
}

/**
 * Fetches the session, one request at a time: callers while one is in flight share its answer.
 * Notifies every subscriber. `broadcast` tells the other tabs to fetch theirs too.
 */
export function refreshSession(options: { broadcast?: boolean } = {}): Promise<Session | null> {
  store.inflight ??= getJson<Session | null>("session").then(
    (session) => {
      store.inflight = undefined;
      store.session = session && Object.keys(session).length ? session : null;
      notify();
      return store.session;
    },
    () => {
      store.inflight = undefined;
      return null;
    },
  );
  const pending = store.inflight;
  if (options.broadcast) void pending.then(() => broadcast("getSession"));
  return pending;
}

/** What `getSession` takes. */
export interface GetSessionParams {
  /** Tell the application's other tabs to fetch their session too. @default true */
  broadcast?: boolean;
  /** `next-auth` v4's name of `broadcast`, read where `broadcast` is not given. */
  triggerEvent?: boolean;
  /** What made the call (`"storage"`, `"timer"`, `"hidden"`, ...), as `next-auth` names it; informational. */
  event?: "storage" | "timer" | "hidden" | (string & {});
}

/**
 * The session, fetched from `<basePath>/session` (null when signed out). Other tabs are told to
 * fetch theirs too unless `broadcast: false`.
 *
 * @example
 * ```ts
 * const session = await getSession()
 * ```
 */
export function getSession(params: GetSessionParams = {}): Promise<Session | null> {
  return refreshSession({ broadcast: params.broadcast ?? params.triggerEvent ?? true });
}

/**
 * The CSRF token the forms of `<basePath>/*` need (its cookie is set by the same answer).
 *
 * @example
 * ```ts
 * <input type="hidden" name="csrfToken" value={await getCsrfToken()} />
 * ```
 */
export async function getCsrfToken(): Promise<string> {
  return (await getJson<{ csrfToken?: string }>("csrf"))?.csrfToken ?? "";
}

/**
 * The configured providers, by id (null when they cannot be read).
 *
 * @example
 * ```ts
 * const providers = await getProviders() // { github: { id: "github", name: "GitHub", type: "oauth", ... } }
 * ```
 */
export function getProviders(): Promise<Record<string, ClientSafeProvider> | null> {
  return getJson<Record<string, ClientSafeProvider>>("providers");
}

function here(): string {
  return typeof window !== "undefined" ? window.location.href : "/";
}

/** `url` read as the browser would, relative to the current page; null when it is no URL. */
function parsed(url: unknown): URL | null {
  if (typeof url !== "string") return null;
  try {
    return new URL(url, window.location.href);
  } catch {
    return null;
  }
}

/**
 * `url` when it is a page of this application (http or https, this origin), else the current
 * page. A `callbackUrl` / `redirectTo` a caller passed on from a query string, or a URL in an
 * answer a proxy or an extension altered, is never followed to `javascript:` (script in this
 * origin) or to another site.
 *
 * @example
 * ```ts
 * ownPage("/dashboard")                    // "https://app.example/dashboard"
 * ownPage("javascript:alert(1)")           // the current page
 * ownPage("https://evil.example/phish")    // the current page
 * ```
 */
function ownPage(url: string): string {
  const target = parsed(url);
  const web = target?.protocol === "http:" || target?.protocol === "https:";
  return target && web && target.origin === window.location.origin ? target.href : here();
}

/**
 * Goes to a page of this application (`ownPage`), or with `provider`, to the http(s) URL of the
 * OAuth / OIDC provider that the application's own sign-in answered (never `javascript:`).
 *
 * @example
 * ```ts
 * go(answer.url ?? redirectTo) // the current page unless it is one of this application's
 * ```
 */
export function go(url: string, options: { provider?: boolean } = {}): undefined {
  const target = parsed(url);
  const web = target?.protocol === "http:" || target?.protocol === "https:";
  const href = options.provider && target && web ? target.href : ownPage(url);
  window.location.href = href;
  // A URL that differs only by its hash does not reload the page.
  if (href.includes("#")) window.location.reload();
  return undefined;
}

/** The error and code a sign-in answer's URL carries. */
function outcome(url: string | undefined): { error?: string; code?: string } {
  if (!url) return {};
  try {
    const params = new URL(url, typeof window !== "undefined" ? window.location.href : actionUrl("")).searchParams;
    return { error: params.get("error") ?? undefined, code: params.get("code") ?? undefined };
  } catch {
    return {};
  }
}

/**
 * Signs in with a provider. OAuth and OIDC go to the provider; credentials and email post the
 * options' other fields (`email`, `password`, ...). Without a known provider, the sign-in page
 * is opened. With `redirect: false`, credentials and email answer a `SignInResponse` instead.
 *
 * @example
 * ```ts
 * await signIn("github")
 * const result = await signIn("credentials", { email, password, redirect: false })
 * if (result.error) showError(result.code)
 * ```
 */
export async function signIn(
  provider?: string,
  options?: SignInOptions<true>,
  authorizationParams?: SignInAuthorizationParams,
): Promise<undefined>;
export async function signIn(
  provider?: string,
  options?: SignInOptions<false>,
  authorizationParams?: SignInAuthorizationParams,
): Promise<SignInResponse>;
export async function signIn(
  provider?: string,
  options: SignInOptions<boolean> = {},
  authorizationParams?: SignInAuthorizationParams,
): Promise<SignInResponse | undefined> {
  const { callbackUrl, redirect = true, redirectTo = callbackUrl ?? here(), ...fields } = options;
  const providers = await getProviders();
  if (!providers) return go(actionUrl("error"));
  const found = provider ? providers[provider] : undefined;
  if (!found) return go(`${actionUrl("signin")}?${new URLSearchParams({ callbackUrl: String(redirectTo) })}`);
  if (found.type === "webauthn")
    throw new TypeError(
      `The provider "${provider}" is a WebAuthn provider: import { signIn } from "@latchkey/next/webauthn" for it.`,
    );
  const kind = found.type === "credentials" ? "callback" : "signin";
  const query = new URLSearchParams(authorizationParams).toString();
  const body = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) body.set(key, String(value));
  body.set("csrfToken", await getCsrfToken());
  body.set("callbackUrl", String(redirectTo));
  const res = await fetch(`${actionUrl(`${kind}/${encodeURIComponent(found.id)}`)}${query ? `?${query}` : ""}`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Auth-Return-Redirect": "1" },
    body,
  });
  const data = (await res.json().catch(() => ({}))) as { url?: string; error?: string };
  const { error, code } = outcome(data.url);
  // Only an OAuth / OIDC sign-in that the server started leaves for another origin (the provider's).
  const toProvider = (found.type === "oauth" || found.type === "oidc") && !error;
  if (redirect) return typeof data.url === "string" ? go(data.url, { provider: toProvider }) : go(String(redirectTo));
  if (res.ok && !error) await refreshSession({ broadcast: true });
  return {
    error: error ?? data.error,
    code,
    status: res.status,
    ok: res.ok && !error,
    url: error ? null : (data.url ?? null),
  };
}

/**
 * Signs out (the session ends on the server and its cookie is cleared), tells every other tab,
 * and goes to `redirectTo` (the current page by default), or with `redirect: false` stays.
 *
 * @example
 * ```ts
 * <button onClick={() => signOut({ redirectTo: "/" })}>Sign out</button>
 * ```
 */
export async function signOut(options?: SignOutParams<true>): Promise<undefined>;
export async function signOut(options?: SignOutParams<false>): Promise<SignOutResponse>;
export async function signOut(options: SignOutParams<boolean> = {}): Promise<SignOutResponse | undefined> {
  const { redirect = true, redirectTo = options.callbackUrl ?? here() } = options;
  const res = await fetch(actionUrl("signout"), {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Auth-Return-Redirect": "1" },
    body: new URLSearchParams({ csrfToken: await getCsrfToken(), callbackUrl: String(redirectTo) }),
  });
  const data = (await res.json().catch(() => ({}))) as { url?: string; error?: string };
  if (!res.ok || data.error) {
    // The server did not end the session (503 SignOutError: its store did not confirm): this page
    // and the others keep showing it, as it is, and the caller hears why.
    await refreshSession({ broadcast: false });
    const error = data.error ?? `HTTP ${res.status}`;
    if (redirect) return go(data.url ?? String(redirectTo));
    return { url: data.url ?? String(redirectTo), error };
  }
  store.session = null;
  notify();
  broadcast("signout");
  if (redirect) return go(data.url ?? String(redirectTo));
  return { url: data.url ?? String(redirectTo) };
}

/**
 * Sends `data` to the session (the `jwt` callback sees `trigger: "update"` and `session: data`)
 * and shares the new session with this page and the others; without `data`, fetches it again.
 *
 * @example
 * ```ts
 * await updateSession({ name: "New name" })
 * ```
 */
export async function updateSession(data?: unknown): Promise<Session | null> {
  if (data === undefined) return refreshSession({ broadcast: true });
  store.updating = true;
  notify();
  try {
    const session = await getJson<Session | null>("session", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ csrfToken: await getCsrfToken(), data }),
    });
    if (session) {
      store.session = session;
      broadcast("update");
    }
    return session;
  } finally {
    store.updating = false;
    notify();
  }
}

/** The store's state, for `useSession`: the same object until the session changes. */
export function sessionState(): Snapshot {
  return snapshot;
}

/**
 * Puts the session the server rendered (`<SessionProvider session={...}>`) in the store, when a
 * provider mounts in the browser: it is newer than what the store holds. Listeners are not
 * called (the provider is rendering and reads the store next).
 */
export function seedSession(session: Session | null): void {
  store.session = session;
  takeSnapshot();
}

/**
 * Takes a session the server rendered later (a layout rendered again after a server action signed
 * in or out) when it differs from the store's, and tells every `useSession`.
 */
export function adoptSession(session: Session | null): void {
  if (JSON.stringify(session) === JSON.stringify(store.session ?? null) && store.session !== undefined) return;
  store.session = session;
  notify();
}

let tabListening = false;

function onOtherTab(): void {
  void refreshSession();
}

function onStorage(event: StorageEvent): void {
  if (event.key === CHANNEL && event.newValue) onOtherTab();
}

/**
 * Calls `listener` whenever the session changes (here or, once anyone listens, in another tab).
 * Returns the function that stops it.
 *
 * @example
 * ```ts
 * const stop = subscribeSession(() => render(sessionState().session))
 * ```
 */
export function subscribeSession(listener: Listener): () => void {
  store.listeners.add(listener);
  if (!tabListening) {
    tabListening = true;
    const ch = tabs();
    if (ch) ch.addEventListener("message", onOtherTab);
    else if (typeof window !== "undefined") window.addEventListener("storage", onStorage);
  }
  return () => {
    store.listeners.delete(listener);
    if (store.listeners.size === 0 && tabListening) {
      tabListening = false;
      channel?.removeEventListener("message", onOtherTab);
      if (typeof window !== "undefined") window.removeEventListener("storage", onStorage);
    }
  };
}
