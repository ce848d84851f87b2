/**
 * Runs code the way Next.js runs a Server Action, a Route Handler or a Server Component: inside
 * Next.js's own request store (the one `headers()` and `cookies()` of `next/headers` read), built
 * by Next.js's own functions for route handlers (the request's store and the route's work store). No Next.js server is started and nothing of
 * Next.js is replaced: the cookie writes are the ones Next.js would turn into `Set-Cookie`.
 */
import "./next-environment.js";
import { getURLFromRedirectError } from "next/dist/client/components/redirect.js";
import { isRedirectError } from "next/dist/client/components/redirect-error.js";
import { workAsyncStorage } from "next/dist/server/app-render/work-async-storage.external.js";
import { workUnitAsyncStorage } from "next/dist/server/app-render/work-unit-async-storage.external.js";
import { createRequestStoreForAPI } from "next/dist/server/async-storage/request-store.js";
import { createWorkStore } from "next/dist/server/async-storage/work-store.js";

export interface InRequest<T> {
  /** What the function returned, if it returned. */
  result?: T;
  /** What it threw, if it threw (a Next.js redirect included). */
  error?: unknown;
  /** The target of `redirect()`, when it redirected. */
  redirectedTo?: string;
  /** The `Set-Cookie` values Next.js would send, as its cookie store made them. */
  setCookies: string[];
}

/**
 * Runs `fn` as Next.js runs code for a request with these headers: `phase` "action" (a Server
 * Action or Route Handler, where cookies can be written) or "render" (a Server Component).
 */
export async function inNextRequest<T>(
  url: string,
  headers: Record<string, string>,
  fn: () => Promise<T>,
  phase: "action" | "render" = "action",
): Promise<InRequest<T>> {
  let setCookies: string[] = [];
  const u = new URL(url);
  const store = createRequestStoreForAPI(
    { headers: new Headers({ host: u.host, ...headers }) } as never,
    { pathname: u.pathname, search: u.search } as never,
    [] as never,
    (cookies: string[]) => {
      setCookies = cookies;
    },
    undefined as never,
    undefined,
  ) as { phase: string };
  store.phase = phase;
  const work = createWorkStore({
    page: u.pathname,
    renderOpts: { experimental: {}, isDraftMode: false } as never,
    isPrefetchRequest: false,
    buildId: "test",
    previouslyRevalidatedTags: [],
  } as never);
  const out: InRequest<T> = { setCookies: [] };
  try {
    out.result = await workAsyncStorage.run(work, () => workUnitAsyncStorage.run(store as never, fn));
  } catch (e) {
    out.error = e;
    if (isRedirectError(e)) out.redirectedTo = getURLFromRedirectError(e);
  }
  out.setCookies = setCookies;
  return out;
}

/** The cookies of `Set-Cookie` values as a `Cookie` header (deletions left out). */
export function cookieHeader(setCookies: string[]): string {
  return setCookies
    .map((c) => c.split(";")[0] as string)
    .filter((pair) => !pair.endsWith("="))
    .join("; ");
}

/** A tiny cookie jar over the Web `Response`s of the route handlers. */
export class Jar {
  readonly cookies = new Map<string, string>();
  apply(values: string[]): void {
    for (const header of values) {
      const [pair, ...attributes] = header.split(";");
      const eq = (pair as string).indexOf("=");
      const name = (pair as string).slice(0, eq).trim();
      const value = (pair as string).slice(eq + 1).trim();
      if (value === "" || attributes.some((a) => /^\s*max-age=0\s*$/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}
