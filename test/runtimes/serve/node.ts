// `node serve/node.mjs <module>`: the Worker module `<module>` on Node.js, through
// `@hono/node-server` (a Web `Request` made of each `node:http` request), with `process.env` as
// its variables, on 127.0.0.1 and a free port.
import { serve } from "@hono/node-server";

const { default: worker } = (await import(process.argv[2] ?? "")) as WorkerModule;
serve({ fetch: (request) => worker.fetch(request, process.env), hostname: "127.0.0.1", port: 0 }, (info) =>
  console.log(`listening on http://${info.address}:${info.port}`),
);
