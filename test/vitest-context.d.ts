// What vitest.config.ts provides to every test file, read with `inject(...)` from "vitest".
import "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** The factor every time budget of the suite is multiplied by (see vitest.config.ts). */
    timeScale: number;
    /** This run's id: what is built once per run is stamped with it (see test/support/once-per-run.ts). */
    runId: string;
  }
}
