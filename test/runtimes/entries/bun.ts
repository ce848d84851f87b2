// The pipeline's application (`core-app.ts`) on Bun: `Bun.serve` on HOST and PORT (0: any free one).
import { coreApp } from "../core-app.js";

declare const Bun: {
  env: Record<string, string | undefined>;
  serve(options: { hostname: string; port: number; fetch(request: Request): Promise<Response> }): { url: URL };
};

const app = coreApp(Bun.env);
const server = Bun.serve({ hostname: Bun.env.HOST ?? "127.0.0.1", port: Number(Bun.env.PORT ?? 0), fetch: app.fetch });
console.log(`listening on ${server.url.origin}`);
