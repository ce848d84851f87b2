// `npm start`: the demo on Fastify, with the settings of the environment (see `runDemo`).
import { runDemo } from "@latchkey/express-demo/demo";
import { createFastifyApp } from "./app.js";

await runDemo("Fastify", { app: createFastifyApp });
