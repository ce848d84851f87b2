import { randomUUID } from "node:crypto";
import { availableParallelism, loadavg } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * How much slower than a quiet machine this run may be: `TEST_TIME_SCALE` when set, else the load
 * per core when the run starts (at least 1, at most 5). Every time budget of the suite (vitest's
 * test and hook timeouts, and the deadlines tests give to events they wait for, through
 * `inject("timeScale")`) is multiplied by it, so a busy machine makes tests slower, never red.
 */
const timeScale =
  Number(process.env.TEST_TIME_SCALE) ||
  Math.min(5, Math.max(1, Math.ceil((loadavg()[0] / availableParallelism()) * 10) / 10));

// One run covers every package. Tests import the built packages (`tsc -b` runs first in
// `npm test`), so they exercise exactly what users install.
export default defineConfig({
  test: {
    include: [
      "packages/*/test/**/*.test.ts",
      "test/**/*.test.ts",
      "examples/*/test/**/*.test.ts",
      "bench/test/**/*.test.ts",
    ],
    exclude: ["**/node_modules/**", "**/dist/**"],
    pool: "forks",
    testTimeout: 30_000 * timeScale,
    hookTimeout: 60_000 * timeScale,
    // `runId` names this run: a build several test files need is made once per run (the SvelteKit demo).
    provide: { timeScale, runId: randomUUID() },
  },
});
