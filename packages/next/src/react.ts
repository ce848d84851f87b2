"use client";
/**
 * React bindings of Latchkey for Next.js, as `next-auth/react` has them: `<SessionProvider>` and
 * `useSession()`, with the browser functions `signIn`, `signOut`, `getSession`, `getCsrfToken`
 * and `getProviders`. One session fetch serves every component; the session is fetched again
 * when the window regains focus, every `refetchInterval` seconds, and when another tab signs in,
 * signs out or updates it.
 *
 * @example
 * ```tsx
 * // app/providers.tsx
 * "use client"
 * import { SessionProvider } from "@latchkey/next/react"
 * export function Providers({ children }) { return <SessionProvider>{children}</SessionProvider> }
 *
 * // any client component
 * const { data: session, status, update } = useSession()
 * ```
 * @module @latchkey/next/react
 */
import type { Session } from "@latchkey/core/types";
import * as React from "react";
import {
  actionUrl,
  adoptSession,
  configureClient,
  refreshSession,
  seedSession,
  sessionState,
  subscribeSession,
  updateSession,
} from "./client.js";

export {
  type ClientSafeProvider,
  configureClient,
  type GetSessionParams,
  getCsrfToken,
  getProviders,
  getSession,
  type SignInAuthorizationParams,
  type SignInOptions,
  type SignInResponse,
  type SignOutParams,
  type SignOutResponse,
  signIn,
  signOut,
} from "./client.js";

/** Sends data to the session (or, without, fetches it again) and returns the new session. */
export type UpdateSession = (data?: unknown) => Promise<Session | null>;

/** What `useSession` returns; with `required: true`, never "unauthenticated". */
export type SessionContextValue<R extends boolean = false> = R extends true
  ?
      | { update: UpdateSession; data: Session; status: "authenticated" }
      | { update: UpdateSession; data: null; status: "loading" }
  :
      | { update: UpdateSession; data: Session; status: "authenticated" }
      | { update: UpdateSession; data: null; status: "unauthenticated" | "loading" };

/** The options of `useSession`. */
export interface UseSessionOptions<R extends boolean> {
  /** Needs a signed-in user: without one, `onUnauthenticated` runs, or the sign-in page opens. */
  required?: R;
  /** Called instead of opening the sign-in page when `required` and signed out. */
  onUnauthenticated?: () => void;
}

/** The props of `SessionProvider`. */
export interface SessionProviderProps {
  children?: React.ReactNode;
  /** The session the server already read (`await auth()`), to render without a first fetch. */
  session?: Session | null;
  /** `NextAuth`'s `basePath`; `/api/auth` by default. */
  basePath?: string;
  /**
   * Accepted as `next-auth` accepts it, and, as there, not used: in the browser every request
   * goes to `basePath` on the page's own origin (on a server, `AUTH_URL`'s).
   */
  baseUrl?: string;
  /** Fetch the session again every this many seconds (0, the default: never). */
  refetchInterval?: number;
  /** Fetch the session again when the window regains focus (default true). */
  refetchOnWindowFocus?: boolean;
  /** Keep the interval's fetches while the browser is offline (default true). */
  refetchWhenOffline?: false;
}

export const SessionContext = React.createContext<SessionContextValue | undefined>(undefined);

/**
 * Provides the session to `useSession` below it. Put it once, in a client component around the
 * application (`app/providers.tsx`), and pass it the server's session to skip the first fetch.
 *
 * @example
 * ```tsx
 * <SessionProvider session={await auth()} refetchInterval={300}>{children}</SessionProvider>
 * ```
 */
export function SessionProvider(props: SessionProviderProps): React.ReactElement {
  const { children, session, basePath, refetchInterval, refetchOnWindowFocus = true, refetchWhenOffline } = props;
  if (basePath) configureClient({ basePath });
  // On the server, the store (one per process) is never read or written: each request renders
  // with the session it was given. In the browser, a provider that mounts with the server's
  // session puts it in the store, which every component then shares.
  React.useState(() => {
    if (typeof window !== "undefined" && session !== undefined) seedSession(session);
    return true;
  });
  const serverState = React.useMemo(
    () => ({ session, updating: false, basePath: basePath ?? "/api/auth" }),
    [session, basePath],
  );
  const state = React.useSyncExternalStore(subscribeSession, sessionState, () => serverState);

  React.useEffect(() => {
    if (sessionState().session === undefined) void refreshSession();
  }, []);

  // A layout rendered again with a new session (a server action signed in or out) shows at once.
  React.useEffect(() => {
    if (session !== undefined) adoptSession(session);
  }, [session]);

  React.useEffect(() => {
    if (!refetchOnWindowFocus) return;
    const onVisible = () => {
      if (document.visibilityState === "visible") void refreshSession();
    };
    document.addEventListener("visibilitychange", onVisible);
    return () => document.removeEventListener("visibilitychange", onVisible);
  }, [refetchOnWindowFocus]);

  React.useEffect(() => {
    if (!refetchInterval) return;
    const timer = setInterval(() => {
      if (refetchWhenOffline === false && !navigator.onLine) return;
      void refreshSession();
    }, refetchInterval * 1000);
    return () => clearInterval(timer);
  }, [refetchInterval, refetchWhenOffline]);

  const value = React.useMemo(
    () =>
      ({
        // `undefined` until the session is known, as next-auth answers it (its type says null): a
        // page that hands `useSession().data` to a nested `<SessionProvider session={...}>` while
        // it loads then gives it no session, and the nested provider waits for the same fetch
        // instead of taking "signed out" for an answer.
        data: state.session,
        status:
          state.session === undefined || state.updating
            ? "loading"
            : state.session
              ? "authenticated"
              : "unauthenticated",
        update: updateSession,
      }) as SessionContextValue,
    [state],
  );
  return React.createElement(SessionContext.Provider, { value }, children);
}

/**
 * The session, its status (`loading`, `authenticated`, `unauthenticated`) and `update`. With
 * `required: true`, a signed-out user is sent to the sign-in page (or `onUnauthenticated` runs)
 * and the status stays `loading`. `data` is `undefined` until the session is first known, as in
 * next-auth, then the session or null.
 *
 * @example
 * ```tsx
 * const { data: session, status, update } = useSession({ required: true })
 * if (status === "loading") return <p>Loading…</p>
 * return <button onClick={() => update({ name: "Ada" })}>{session.user?.name}</button>
 * ```
 */
export function useSession<R extends boolean = false>(options?: UseSessionOptions<R>): SessionContextValue<R> {
  const value = React.useContext(SessionContext);
  if (!value) throw new Error("useSession must be used inside <SessionProvider> (from @latchkey/next/react).");
  const { required, onUnauthenticated } = options ?? {};
  const mustLeave = !!required && value.status === "unauthenticated";
  React.useEffect(() => {
    if (!mustLeave) return;
    if (onUnauthenticated) onUnauthenticated();
    else
      window.location.href = `${actionUrl("signin")}?${new URLSearchParams({
        error: "SessionRequired",
        callbackUrl: window.location.href,
      })}`;
  }, [mustLeave, onUnauthenticated]);
  if (mustLeave) return { data: null, update: value.update, status: "loading" } as SessionContextValue<R>;
  return value as SessionContextValue<R>;
}
