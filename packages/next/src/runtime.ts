/**
 * `EdgeRuntimeUnsupported`, kept for applications that import it: `@latchkey/next` used to throw it
 * on Next.js's Edge runtime, when the core needed `node:crypto`. The core now runs there (Web Crypto
 * where `node:crypto` is absent), and nothing throws it any more.
 */

/**
 * The error `@latchkey/next` threw on the Edge runtime, before the core ran there. Never thrown
 * now; an `instanceof` check of it is simply never true.
 *
 * @deprecated Latchkey runs on the Edge runtime: remove the check (or the `runtime = "nodejs"`
 * settings added for it; they still work).
 */
export class EdgeRuntimeUnsupported extends Error {
  override name = "EdgeRuntimeUnsupported";
}
