/**
 * Where `ExpressAuth(config)` is mounted, for `requireAuth(config)`'s sign-in redirect when the
 * configuration names no `basePath`: the mount seen by the last request `ExpressAuth` served (the
 * core's `noteMount`, as every shell notes it), else the first of the usual paths that the
 * application's router sends to it.
 */
import type { AuthConfig } from "@latchkey/core";
import { mountNoted, noteMount } from "@latchkey/core/internal";

const handlerConfig = Symbol("latchkey.expressAuthConfig");
const CANDIDATES = ["/auth", "/api/auth"];

/** Marks `handler` as the `ExpressAuth` of `config`, so a router walk can recognise it. */
export function markHandler<F extends object>(handler: F, config: AuthConfig): F {
  Object.defineProperty(handler, handlerConfig, { value: config });
  return handler;
}

interface Layer {
  handle?: unknown;
  route?: { stack?: Layer[] };
  path?: string;
  params?: unknown;
  match?(path: string): boolean;
}

const isHandlerOf = (handle: unknown, config: AuthConfig) =>
  typeof handle === "function" && (handle as unknown as Record<symbol, unknown>)[handlerConfig] === config;

/** Runs `layer.match(path)` and undoes what it writes on the layer (the router's own state). */
function matched(layer: Layer, path: string): string | undefined {
  if (typeof layer.match !== "function") return undefined;
  const saved = { path: layer.path, params: layer.params };
  try {
    return layer.match(path) ? (layer.path ?? "") : undefined;
  } catch {
    return undefined;
  } finally {
    layer.path = saved.path;
    layer.params = saved.params;
  }
}

/** Whether the router stack `stack` has the handler of `config` anywhere (nested routers included). */
function holds(stack: Layer[] | undefined, config: AuthConfig, depth = 0): boolean {
  if (!Array.isArray(stack) || depth > 8) return false;
  return stack.some(
    (layer) =>
      isHandlerOf(layer.handle, config) ||
      holds(layer.route?.stack, config, depth + 1) ||
      holds((layer.handle as { stack?: Layer[] } | undefined)?.stack, config, depth + 1),
  );
}

/** Whether a request for `path` reaches the handler of `config` through `stack`. */
function reaches(stack: Layer[] | undefined, path: string, config: AuthConfig, depth = 0): boolean {
  if (!Array.isArray(stack) || depth > 8) return false;
  for (const layer of stack) {
    if (isHandlerOf(layer.handle, config) || holds(layer.route?.stack, config)) {
      if (matched(layer, path) !== undefined) return true;
      continue;
    }
    const inner = (layer.handle as { stack?: Layer[] } | undefined)?.stack;
    if (!holds(inner, config)) continue;
    const prefix = matched(layer, path);
    if (prefix !== undefined && reaches(inner, path.slice(prefix.length) || "/", config, depth + 1)) return true;
  }
  return false;
}

/**
 * The base path of `ExpressAuth(config)` in `app`: the mount a request to it arrived under, else
 * the first usual path (`/auth`, `/api/auth`) whose sign-in page the router sends to it. `null`
 * when the handler is in the router but none of those paths reaches it; `undefined` when the
 * router cannot be read or does not hold it.
 */
export function mountOf(app: unknown, config: AuthConfig): string | null | undefined {
  const known = mountNoted(config);
  if (known !== undefined) return known;
  let stack: Layer[] | undefined;
  try {
    // Express 4 keeps its router on `_router` (its `app.router` throws); Express 5 on `router`.
    const holder = (app ?? {}) as { _router?: { stack?: Layer[] }; router?: { stack?: Layer[] } };
    stack = holder._router?.stack ?? holder.router?.stack;
  } catch {
    return undefined;
  }
  if (!holds(stack, config)) return undefined;
  const found = CANDIDATES.find((base) => reaches(stack, `${base}/signin`, config));
  // Found once, kept: the router is not walked again for this configuration.
  noteMount(config, found);
  return found ?? null;
}
