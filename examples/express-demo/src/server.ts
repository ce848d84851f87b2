// `npm start`: runs the demo with the settings of the environment (see `runDemo`).
import { runDemo } from "./demo.js";

await runDemo("Express");
