// `deno run --allow-net --allow-env --allow-read dist/deno.js`: the demo on Deno (`portable.ts`),
// on PORT (default 3000) and HOST.
import { portableDemo } from "./portable.js";

declare const Deno: {
  env: { toObject(): Record<string, string> };
  serve(
    options: { hostname: string; port: number; onListen(address: { hostname: string; port: number }): void },
    /** Called with the handler's info (the client's address) as its second argument, which the demo hands to Hono. */
    fetch: (request: Request, info: unknown) => Promise<Response>,
  ): unknown;
};

const env = Deno.env.toObject();
const demo = portableDemo(env);
Deno.serve(
  {
    hostname: env.HOST ?? "localhost",
    port: Number(env.PORT ?? 3000),
    onListen: ({ hostname, port }) => console.log(`Latchkey demo on http://${hostname}:${port}`),
  },
  demo.fetch,
);
