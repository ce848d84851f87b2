/**
 * Next.js's own modules, imported on first use by their bare names (`next/headers`,
 * `next/navigation`, `next/server`). Next.js's bundler aliases exactly these names to the build
 * each server layer needs (a Route Handler must not get the client router of `next/navigation`);
 * a `.js` specifier escapes the alias and breaks `next build`. Plain Node.js cannot resolve the
 * bare names (the `next` package has no `exports` map), so they are imported inside functions:
 * the package itself still loads anywhere (tests, type-checks), and they are only ever called
 * inside Next.js.
 */
import type * as HeadersModule from "next/headers.js";
import type * as NavigationModule from "next/navigation.js";
import type * as ServerModule from "next/server.js";

let headersModule: Promise<typeof HeadersModule> | undefined;
let navigationModule: Promise<typeof NavigationModule> | undefined;
let serverModule: Promise<typeof ServerModule> | undefined;

let headersLoaded: typeof HeadersModule | undefined;

/** `next/headers` (`headers()`, `cookies()`). */
export function nextHeaders(): Promise<typeof HeadersModule> {
  headersModule ??= (import("next/headers" as string) as Promise<typeof HeadersModule>).then((module) => {
    headersLoaded = module;
    return module;
  });
  return headersModule;
}

/** `next/headers` once `nextHeaders()` has loaded it, without waiting for a promise; else undefined. */
export function loadedNextHeaders(): typeof HeadersModule | undefined {
  return headersLoaded;
}

/** `next/navigation` (`redirect()`). */
export function nextNavigation(): Promise<typeof NavigationModule> {
  navigationModule ??= import("next/navigation" as string) as Promise<typeof NavigationModule>;
  return navigationModule;
}

let serverLoaded: typeof ServerModule | undefined;

/** `next/server` (`NextRequest`, `NextResponse`). */
export function nextServer(): Promise<typeof ServerModule> {
  serverModule ??= (import("next/server" as string) as Promise<typeof ServerModule>).then((module) => {
    serverLoaded = module;
    return module;
  });
  return serverModule;
}

/** `next/server` once `nextServer()` has loaded it, without waiting for a promise; else undefined. */
export function loadedNextServer(): typeof ServerModule | undefined {
  return serverLoaded;
}
