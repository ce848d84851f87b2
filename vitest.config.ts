import { defineConfig } from "vitest/config";

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
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
