/**
 * The one file of these tests that reaches into Next.js's internal modules (`next/dist/...`),
 * which Next.js does not document and changes between minor versions. It runs code the way
 * Next.js runs a Server Action, a Route Handler or a Server Component: inside Next.js's own
 * request store (the one `headers()` and `cookies()` of `next/headers` read), built by Next.js's
 * own functions for route handlers (the request's store and the route's work store). No Next.js
 * server is started and nothing of Next.js is replaced: the cookie writes are the ones Next.js
 * would turn into `Set-Cookie`. Next.js offers no public way to do this (its testing helpers
 * cover middleware only); the browser tests of examples/next-demo and examples/next-demo-15 run
 * the same calls through `next build` and `next start`.
 *
 * Imported first by every test of the package: it also sets up Next.js's Node environment
 * (AsyncLocalStorage on globalThis), which Next.js's server does before any of its modules load.
 * The version guard stops the run with what to do when the installed Next.js is not the one these
 * internal paths were checked against.
 */
import { createRequire } from "node:module";

const CHECKED = /^16\.4\./;
const require = createRequire(import.meta.url);
const installed = (require("next/package.json") as { version: string }).version;
if (!CHECKED.test(installed))
  throw new Error(
    `packages/next/test/next-internals.ts builds Next.js's request store through internal modules checked against Next.js 16.4, and Next.js ${installed} is installed. Check its imports (next/dist/server/async-storage/request-store.js and work-store.js, app-render/work-*-async-storage.external.js, client/components/redirect*.js) against this version, then widen CHECKED.`,
  );
require("next/dist/server/node-environment-baseline.js");

const { getURLFromRedirectError } =
  require("next/dist/client/components/redirect.js") as typeof import("next/dist/client/components/redirect.js");
const { isRedirectError } =
  require("next/dist/client/components/redirect-error.js") as typeof import("next/dist/client/components/redirect-error.js");
const { workAsyncStorage } =
  require("next/dist/server/app-render/work-async-storage.external.js") as typeof import("next/dist/server/app-render/work-async-storage.external.js");
const { workUnitAsyncStorage } =
  require("next/dist/server/app-render/work-unit-async-storage.external.js") as typeof import("next/dist/server/app-render/work-unit-async-storage.external.js");
const { createRequestStoreForAPI } =
  require("next/dist/server/async-storage/request-store.js") as typeof import("next/dist/server/async-storage/request-store.js");
const { createWorkStore } =
  require("next/dist/server/async-storage/work-store.js") as typeof import("next/dist/server/async-storage/work-store.js");

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

/**
 * A second `NextRequest` class, from a second evaluation of Next.js's module: what a Route Handler
 * is given in a `next build`, whose route runtime carries its own copy of the class, so that its
 * request is not `instanceof` the `NextRequest` of `next/server`.
 */
export function separateNextRequestClass(): typeof import("next/server.js").NextRequest {
  const path = require.resolve("next/dist/server/web/spec-extension/request.js");
  const cached = require.cache[path];
  delete require.cache[path];
  try {
    return (require(path) as typeof import("next/server.js")).NextRequest;
  } finally {
    if (cached) require.cache[path] = cached;
    else delete require.cache[path];
  }
}
