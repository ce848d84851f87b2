// The pipeline's application (`core-app.ts`) on Deno: `Deno.serve` on HOST and PORT (0: any free one).
import { coreApp } from "../core-app.js";

declare const Deno: {
  env: { toObject(): Record<string, string> };
  serve(
    options: { hostname: string; port: number; onListen(address: { hostname: string; port: number }): void },
    fetch: (request: Request) => Promise<Response>,
  ): unknown;
};

const env = Deno.env.toObject();
const app = coreApp(env);
Deno.serve(
  {
    hostname: env.HOST ?? "127.0.0.1",
    port: Number(env.PORT ?? 0),
    onListen: ({ hostname, port }) => console.log(`listening on http://${hostname}:${port}`),
  },
  app.fetch,
);
