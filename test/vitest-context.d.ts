// What vitest.config.ts provides to every test file, read with `inject(...)` from "vitest".
import "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** The factor every time budget of the suite is multiplied by (see vitest.config.ts). */
    timeScale: number;
  }
}
