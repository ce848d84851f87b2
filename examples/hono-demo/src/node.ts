// `node dist/node.js`: the portable demo (`portable.ts`) on Node.js, as Bun, Deno and a Worker run
// it (`npm start` runs the whole Node.js demo instead, `server.ts`), on PORT (default 3000) and HOST.
import { serve } from "@hono/node-server";
import { portableDemo } from "./portable.js";

const demo = portableDemo(process.env);
serve(
  { fetch: demo.fetch, hostname: process.env.HOST ?? "localhost", port: Number(process.env.PORT ?? 3000) },
  (info) => console.log(`Latchkey demo on http://${process.env.HOST ?? "localhost"}:${info.port}`),
);
