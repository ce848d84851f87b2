// What the launchers of this folder use of Bun's and Deno's globals (their own type packages
// declare far more, and clash with @types/node).
declare const Bun: {
  argv: string[];
  env: Record<string, string | undefined>;
  serve(options: { hostname: string; port: number; fetch(request: Request): Promise<Response> }): { url: URL };
};

declare const Deno: {
  args: string[];
  env: { toObject(): Record<string, string> };
  serve(
    options: { hostname: string; port: number; onListen(address: { hostname: string; port: number }): void },
    fetch: (request: Request) => Promise<Response>,
  ): unknown;
};

/** A Worker module: what every application of `runtimes.test.ts` is, and each launcher serves. */
interface WorkerModule {
  default: { fetch(request: Request, env: Record<string, string | undefined>): Promise<Response> };
}
