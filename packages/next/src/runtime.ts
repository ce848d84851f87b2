/**
 * Latchkey runs on the Node.js runtime only: the core signs, seals and hashes with `node:crypto`.
 * Next.js's Edge runtime has no `node:crypto`, so code there would fail later with an error that
 * names neither the cause nor the fix. This check names both, at the first use.
 */
declare const EdgeRuntime: string | undefined;

/** True when this module is running in Next.js's Edge runtime. */
function isEdgeRuntime(): boolean {
  return typeof EdgeRuntime === "string" || process.env.NEXT_RUNTIME === "edge";
}

/** The error for code that runs Latchkey on the Edge runtime, naming the fix. */
export class EdgeRuntimeUnsupported extends Error {
  override name = "EdgeRuntimeUnsupported";
}

/**
 * Throws `EdgeRuntimeUnsupported` in the Edge runtime.
 *
 * @example
 * ```ts
 * assertNodeRuntime() // at the start of every entry point
 * ```
 */
export function assertNodeRuntime(): void {
  if (!isEdgeRuntime()) return;
  throw new EdgeRuntimeUnsupported(
    [
      "@latchkey/next runs on the Node.js runtime only (it uses node:crypto), and this code runs on the Edge runtime.",
      'In a route handler or page, remove `export const runtime = "edge"` or write `export const runtime = "nodejs"`.',
      'In middleware.ts (Next.js 15.5 and later), add `export const config = { runtime: "nodejs" }`; with Next.js 16, name the file proxy.ts, which runs on Node.js.',
    ].join(" "),
  );
}
