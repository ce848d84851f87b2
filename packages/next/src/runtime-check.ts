/**
 * Imported first by the package's entry point, so that on the Edge runtime the error naming the
 * fix comes before anything of the core (which needs `node:crypto`) is evaluated.
 */
import { assertNodeRuntime } from "./runtime.js";

assertNodeRuntime();
