// `npm start`: the demo on Hono and Node.js, with the settings of the environment (see `runDemo`).
import { getRequestListener } from "@hono/node-server";
import { runDemo } from "@latchkey/express-demo/demo";
import { createHonoApp } from "./app.js";

await runDemo("Hono", { app: (options) => getRequestListener(createHonoApp(options).fetch) });
