// The pipeline's application (`core-app.ts`) on Node.js, through `@hono/node-server` (a Web
// `Request` made of each `node:http` request) on HOST and PORT (0: any free one).
import { serve } from "@hono/node-server";
import { coreApp } from "../core-app.js";

const app = coreApp(process.env);
serve({ fetch: app.fetch, hostname: process.env.HOST ?? "127.0.0.1", port: Number(process.env.PORT ?? 0) }, (info) =>
  console.log(`listening on http://${info.address}:${info.port}`),
);
