// The unused-exports step of `npm test` (scripts/check-unused-exports.mjs), shown to find what it
// is meant to find in a small workspace written to a temporary folder: public entry points and
// what they re-export are used by definition; an import, `import * as`, `import()` and a re-export
// chain pass a use on; anything else exported and imported nowhere is reported.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unusedExports } from "../../scripts/check-unused-exports.mjs";

const files: Record<string, string> = {
  "packages/lib/package.json": JSON.stringify({
    name: "lib",
    exports: { ".": { types: "./dist/index.d.ts", default: "./dist/index.js" } },
  }),
  // the public entry: everything it exports or re-exports is used
  "packages/lib/src/index.ts": `export * from "./public.js";\nexport { chained } from "./middle.js";\nexport const top = 1;\n`,
  "packages/lib/src/public.ts": `export const shown = 1;\nexport function alsoShown() {}\n`,
  "packages/lib/src/middle.ts": `export { chained } from "./deep.js";\nexport const middleOnly = 2;\n`,
  "packages/lib/src/deep.ts": `export const chained = 3;\nexport const deepUnused = 4;\n`,
  // internals: used through an import, a namespace import, an import(), or not at all
  "packages/lib/src/internal.ts": [
    `export const imported = 1;`,
    `export const unused = 2;`,
    `export interface Options { a: number }`,
    `export function withOptions(options: Options) { return options.a; }`,
    `export type Lonely = string;`,
  ].join("\n"),
  "packages/lib/src/everything.ts": `export const a = 1;\nexport const b = 2;\n`,
  "packages/lib/src/lazy.ts": `export const later = 1;\n`,
  "packages/lib/test/x.test.ts": [
    `import { imported, withOptions } from "../src/internal.js";`,
    `import * as all from "../src/everything.js";`,
    `const lazy = () => import("../src/lazy.js");`,
    `void [imported, withOptions, all, lazy];`,
  ].join("\n"),
};

describe("the unused-exports check", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "unused-exports-"));
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), text);
    }
    await mkdir(join(root, "examples"));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("reports exactly the exports nothing reaches, with file and line", () => {
    expect(unusedExports(root)).toEqual([
      { file: "packages/lib/src/deep.ts", name: "deepUnused", line: 2 },
      { file: "packages/lib/src/internal.ts", name: "unused", line: 2 },
      { file: "packages/lib/src/internal.ts", name: "Lonely", line: 5 },
      { file: "packages/lib/src/middle.ts", name: "middleOnly", line: 2 },
    ]);
  });
});
