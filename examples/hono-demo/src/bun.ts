// `bun dist/bun.js`: the demo on Bun (`portable.ts`), on PORT (default 3000) and HOST.
import { portableDemo } from "./portable.js";

declare const Bun: {
  env: Record<string, string | undefined>;
  serve(options: {
    hostname: string;
    port: number;
    /** Called with the server as its second argument: the demo hands it to Hono, which asks it for the client's address. */
    fetch(request: Request, server: unknown): Promise<Response>;
  }): { url: URL };
};

const demo = portableDemo(Bun.env);
const server = Bun.serve({
  hostname: Bun.env.HOST ?? "localhost",
  port: Number(Bun.env.PORT ?? 3000),
  fetch: demo.fetch,
});
console.log(`Latchkey demo on ${server.url.origin}`);
