// `npm start`: the demo on Hono, with the settings of the environment (see `runDemo`).
import { runDemo } from "@latchkey/express-demo/demo";
import { createHonoApp } from "./app.js";

await runDemo("Hono", { app: createHonoApp });
