/**
 * Runs a bundle on the Edge runtime as Next.js's server does (`next start` runs Edge middleware
 * and Edge routes in the `edge-runtime` VM, `next/dist/server/web/sandbox/context.js`): the
 * context gets Next.js's `process` (the environment, with `NEXT_RUNTIME=edge`; every other member
 * throws), a `require` of the five Node.js modules Next.js lets the Edge runtime import, each cut
 * to the members it passes, and `__import_unsupported`, which the bundle's other Node.js imports
 * call (`bundle.ts`). No `Buffer`, no `node:crypto`.
 *
 * `node edge-host.mjs <bundle.js>`: the bundle sets `globalThis.__entry` to the module whose
 * default export has `fetch(request, env)`; requests are its FetchEvents. Prints
 * `listening on <url>`.
 */
import * as assert from "node:assert";
import * as asyncHooks from "node:async_hooks";
import * as buffer from "node:buffer";
import * as events from "node:events";
import { readFileSync } from "node:fs";
import * as util from "node:util";
import { EdgeRuntime, runServer } from "edge-runtime";

const pick = (from: object, keys: string[]) =>
  Object.fromEntries(keys.map((key) => [key, (from as Record<string, unknown>)[key]]));

/** What Next.js's Edge sandbox hands `require("node:...")`, member for member. */
const nativeModules = new Map<string, object>([
  ["node:buffer", pick(buffer, ["constants", "kMaxLength", "kStringMaxLength", "Buffer", "SlowBuffer"])],
  [
    "node:events",
    pick(events, [
      "EventEmitter",
      "captureRejectionSymbol",
      "defaultMaxListeners",
      "errorMonitor",
      "listenerCount",
      "on",
      "once",
    ]),
  ],
  ["node:async_hooks", pick(asyncHooks, ["AsyncLocalStorage", "AsyncResource"])],
  [
    "node:assert",
    pick(assert, [
      "AssertionError",
      "deepEqual",
      "deepStrictEqual",
      "doesNotMatch",
      "doesNotReject",
      "doesNotThrow",
      "equal",
      "fail",
      "ifError",
      "match",
      "notDeepEqual",
      "notDeepStrictEqual",
      "notEqual",
      "notStrictEqual",
      "ok",
      "rejects",
      "strict",
      "strictEqual",
      "throws",
    ]),
  ],
  ["node:util", pick(util, ["_extend", "callbackify", "format", "inherits", "promisify", "types"])],
]);

const unsupported = (name: string) => () => {
  throw new Error(`The edge runtime does not support Node.js '${name}' module.`);
};

/** Any other Node.js module: loads, and throws at its first use (Next.js's `__import_unsupported`). */
function importUnsupported(name: string): object {
  const fail = unsupported(name);
  const member: object = new Proxy(() => {}, {
    get: (_target, key) => (key === "then" ? {} : fail()),
    construct: fail,
    apply: (_target, _this, args) => (typeof args[0] === "function" ? args[0](member) : fail()),
  });
  return new Proxy({}, { get: () => member });
}

/** Next.js's `process` on the Edge runtime: the environment; calling anything else throws. */
function edgeProcess(): object {
  const polyfill: Record<string, unknown> = { env: { ...process.env, NEXT_RUNTIME: "edge" } };
  for (const key of Object.keys(process)) {
    if (key === "env") continue;
    Object.defineProperty(polyfill, key, {
      get: () =>
        typeof (process as unknown as Record<string, unknown>)[key] === "function"
          ? unsupported(`process.${key}`)
          : undefined,
      enumerable: false,
    });
  }
  return polyfill;
}

const bundle = readFileSync(process.argv[2] ?? "", "utf8");
const runtime = new EdgeRuntime({
  extend(context) {
    Object.assign(context, { process: edgeProcess() });
    Object.defineProperty(context, "require", {
      value(id: string) {
        const found = nativeModules.get(id);
        if (!found) throw new TypeError(`Native module not found: ${id}`);
        return found;
      },
    });
    Object.defineProperty(context, "__import_unsupported", { value: importUnsupported });
    return context;
  },
});
runtime.evaluate(bundle);
runtime.evaluate(
  'addEventListener("fetch", (event) => event.respondWith(globalThis.__entry.default.fetch(event.request, process.env)))',
);
const server = await runServer({ runtime, host: "127.0.0.1", port: Number(process.env.PORT ?? 0) });
console.log(`listening on ${server.url.replace(/\/$/, "")}`);
