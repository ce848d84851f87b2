import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { unitSuites } from "./scripts/unit-suites.mjs";
import base from "./vitest.config.js";

// `npm run test:unit`: the test files that need no database server, no browser and no child
// process (chosen by what they import: scripts/unit-suites.mjs), with the full run's settings.
export default defineConfig({
  ...base,
  test: { ...base.test, include: unitSuites(fileURLToPath(new URL(".", import.meta.url))) },
});
