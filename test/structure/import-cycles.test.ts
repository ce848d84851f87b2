// The structure of the sources, read from outside: no package has an import cycle (type-only
// imports, re-exports and `import()` count), and @latchkey/core keeps the layers of
// docs/architecture.md. The fixture folder holds known cycles, so the finder is shown to find
// what it is meant to find.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { faceViolations, publicModuleCode } from "./faces.js";
import { describeCycle, findCycles, type ImportGraph, importGraph, sourceFiles } from "./import-graph.js";
import { layerViolations } from "./layers.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const fixture = fileURLToPath(new URL("./fixtures/cycles", import.meta.url));
// Every package's sources, and the examples' (an application is read the same way). A Next.js
// example has no src/: the whole app is read (app/, lib/, proxy.ts; not its tests and scripts),
// with the bundler's resolution its tsconfig has. examples/next-demo-15 holds a copy of
// examples/next-demo's source, made at build time, and is left out.
const sources = ["packages", "examples"].flatMap((folder) =>
  readdirSync(join(root, folder), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== "next-demo-15")
    .map((entry) =>
      existsSync(join(root, folder, entry.name, "src")) ? `${folder}/${entry.name}/src` : `${folder}/${entry.name}`,
    ),
);
const bundler: ts.CompilerOptions = {
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  jsx: ts.JsxEmit.Preserve,
};
/** Applications a bundler builds, read with its resolution (`./x` is `./x.ts`): Vite's for SvelteKit. */
const bundled = new Set(["examples/sveltekit-demo/src"]);
const relativeTo = (dir: string) => (file: string) => relative(dir, file).split(sep).join("/");

describe("the import-cycle finder", () => {
  const graph = importGraph(fixture);
  const edges = (from: string) =>
    (graph.get(join(fixture, from)) ?? []).map((edge) => ({ ...edge, to: relativeTo(fixture)(edge.to) }));

  it("sees type-only imports, re-exports, type-position and run-time import() as edges", () => {
    expect(edges("a.ts")).toEqual([
      { to: "b.ts", line: 3, typeOnly: true },
      { to: "leaf.ts", line: 4, typeOnly: false },
    ]);
    expect(edges("b.ts")).toEqual([{ to: "a.ts", line: 2, typeOnly: true }]);
    expect(edges("c.ts")).toEqual([{ to: "d.ts", line: 3, typeOnly: true }]);
    expect(edges("d.ts")).toEqual([{ to: "c.ts", line: 7, typeOnly: false }]);
    expect(edges("leaf.ts")).toEqual([]);
  });

  it("reports each cycle of the fixture as a readable path, and no file outside a cycle", () => {
    const cycles = findCycles(graph).map((cycle) => describeCycle(cycle, fixture));
    expect(cycles.sort()).toEqual(["a.ts → b.ts → a.ts", "c.ts → d.ts → c.ts", "self.ts → self.ts"]);
  });

  it("reports a longer cycle by its shortest path through each file", () => {
    const ring: ImportGraph = new Map([
      ["x", [{ to: "y", line: 1, typeOnly: true }]],
      ["y", [{ to: "z", line: 1, typeOnly: true }]],
      ["z", [{ to: "x", line: 1, typeOnly: false }]],
      ["w", [{ to: "x", line: 1, typeOnly: false }]],
    ]);
    expect(findCycles(ring)).toEqual([["x", "y", "z", "x"]]);
  });

  it("refuses a relative import that names no source file instead of skipping it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "latchkey-structure-"));
    try {
      await writeFile(join(dir, "x.ts"), 'export const x = 1;\nexport type { Y } from "./missing.js";\n');
      expect(() => importGraph(dir)).toThrow('x.ts:2 imports "./missing.js", which resolves to no file');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("the packages' sources", () => {
  it.each(sources)("%s has no import cycle", (folder) => {
    const src = join(root, folder);
    const graph = importGraph(src, folder.endsWith("/src") && !bundled.has(folder) ? undefined : bundler);
    expect(graph.size).toBeGreaterThan(0);
    expect(findCycles(graph).map((cycle) => describeCycle(cycle, src))).toEqual([]);
  });

  it("@latchkey/core keeps its layers (docs/architecture.md, Layers)", () => {
    const src = join(root, "packages/core/src");
    expect(layerViolations(importGraph(src), relativeTo(src))).toEqual([]);
  });

  it("@latchkey/core's wings: lib/ holds only folders, each face only re-exports, and no wing takes a name another's face does not offer", () => {
    const src = join(root, "packages/core/src");
    const files = new Map(sourceFiles(src).map((file) => [relativeTo(src)(file), readFileSync(file, "utf8")]));
    expect([...files.keys()].filter((file) => /^lib\/[^/]+$/.test(file))).toEqual([]);
    expect(faceViolations(files)).toEqual([]);
  });

  it("@latchkey/core's public modules are faces: each holds only re-exports", () => {
    const src = join(root, "packages/core/src");
    const files = new Map(sourceFiles(src).map((file) => [relativeTo(src)(file), readFileSync(file, "utf8")]));
    expect(publicModuleCode(files)).toEqual([]);
  });

  it("the public-module check reports a function, a constant, an import, a local export and a class or interface in any public module, and passes re-exports", () => {
    const files = new Map([
      [
        "jwt.ts",
        'export { encode } from "./lib/crypto/index.js";\nexport type { JWT } from "./shapes/jwt.js";\nexport * from "./lib/x/index.js";\n',
      ],
      [
        "audit.ts",
        'import { a } from "./lib/audit/index.js";\nexport { a };\nexport function f() {}\nexport const n = 1;\n',
      ],
      ["errors.ts", 'export { AuthError } from "./lib/base/index.js";\nexport class Extra extends Error {}\n'],
      ["types.ts", 'export type { AuthConfig } from "./lib/config/index.js";\nexport interface Local {}\n'],
      ["lib/audit/index.ts", "export const inside = 1;\n"],
    ]);
    expect(publicModuleCode(files)).toEqual([
      "audit.ts:1 (a public module only re-exports; its code lives in lib/)",
      "audit.ts:2 (a public module only re-exports; its code lives in lib/)",
      "audit.ts:3 (a public module only re-exports; its code lives in lib/)",
      "audit.ts:4 (a public module only re-exports; its code lives in lib/)",
      "errors.ts:2 (a public module only re-exports; its code lives in lib/)",
      "types.ts:2 (a public module only re-exports; its code lives in lib/)",
    ]);
  });

  it("the wings check reports a face with code, a private name taken from outside, a private module imported whole, a wing without a face, a name offered to no one", () => {
    const files = new Map([
      ["lib/http/index.ts", 'export { cookie, stale } from "./cookies.js";\nexport const extra = 1;\n'],
      ["lib/http/cookies.ts", "export const cookie = 1;\nexport const secretHelper = 2;\nexport const stale = 3;\n"],
      ["lib/http/own.ts", 'import { secretHelper } from "./cookies.js";\n'],
      ["lib/serve/a.ts", 'import { cookie, secretHelper } from "../http/cookies.js";\n'],
      ["lib/serve/b.ts", 'const m = import("../http/cookies.js");\n'],
      ["lib/serve/c.ts", 'import { cookie } from "../http/index.js";\n'],
      ["lib/audit/d.ts", 'import { x } from "../limits/x.js";\n'],
      ["lib/limits/x.ts", "export const x = 1;\n"],
    ]);
    expect(faceViolations(files)).toEqual([
      "lib/http/index.ts:2 (a face only re-exports, by name)",
      "lib/serve/a.ts:1 → lib/http/cookies.ts (secretHelper: not offered by lib/http/index.ts, private to lib/http/)",
      "lib/serve/b.ts:1 → lib/http/cookies.ts (*: not offered by lib/http/index.ts, private to lib/http/)",
      "lib/audit/d.ts:1 → lib/limits/x.ts (lib/limits/ has no face, lib/limits/index.ts)",
      "lib/http/index.ts (stale: offered, and used by no file outside the wing)",
    ]);
  });

  it("the layer check reports an entry module that imports a wing's file, not its face", () => {
    const edge = (to: string) => [{ to, line: 2, typeOnly: false }];
    const graph: ImportGraph = new Map([
      ["jwt.ts", edge("lib/crypto/jwe.ts")],
      ["index.ts", edge("lib/serve/index.ts")],
    ]);
    expect(layerViolations(graph, (file) => file)).toEqual([
      "jwt.ts:2 → lib/crypto/jwe.ts (an entry module imports lib/ only through a wing's face (lib/<wing>/index.ts))",
    ]);
  });

  it("the layer check reports an import that climbs a layer", () => {
    const edge = (to: string) => [{ to, line: 4, typeOnly: true }];
    const graph: ImportGraph = new Map([
      ["lib/flows/x.ts", edge("jwt.ts")],
      ["providers/y.ts", edge("types.ts")],
      ["providers/t.ts", edge("lib/config/options.ts")],
      ["shapes/data.ts", edge("lib/base/errors.ts")],
      ["errors.ts", edge("lib/base/errors.ts")],
      ["lib/config/resolve.ts", edge("types.ts")],
      ["lib/base/adapter-for.ts", edge("errors.ts")],
      ["providers/z.ts", edge("lib/base/symbols.ts")],
      ["providers/w.ts", edge("lib/flows/email/send.ts")],
      ["lib/flows/email/v.ts", edge("lib/config/resolve.ts")],
      ["lib/config/types.ts", edge("lib/flows/oauth/refresh.ts")],
      ["lib/config/options.ts", edge("lib/flows/oauth/refresh.ts")],
      ["lib/flows/email/u.ts", edge("lib/config/types.ts")],
      ["lib/flows/email/s.ts", edge("lib/config/options.ts")],
    ]);
    expect(layerViolations(graph, (file) => file)).toEqual([
      "lib/flows/x.ts:4 → jwt.ts (lib/ imports no entry module of src/)",
      "providers/y.ts:4 → types.ts (providers/ import neither the configuration (lib/config/) nor an entry module)",
      "providers/t.ts:4 → lib/config/options.ts (providers/ import neither the configuration (lib/config/) nor an entry module)",
      "shapes/data.ts:4 → lib/base/errors.ts (shapes/ import only shapes/ and lib/base/symbols.ts)",
      "errors.ts:4 → lib/base/errors.ts (an entry module imports lib/ only through a wing's face (lib/<wing>/index.ts))",
      "lib/config/resolve.ts:4 → types.ts (lib/ imports no entry module of src/)",
      "lib/base/adapter-for.ts:4 → errors.ts (lib/ imports no entry module of src/)",
      "providers/w.ts:4 → lib/flows/email/send.ts (providers/ import no flow: the helpers they run sit below them (lib/email/, lib/base/profile.ts))",
      "lib/flows/email/v.ts:4 → lib/config/resolve.ts (lib/flows/ read the configuration's shapes from lib/config/types.ts and lib/config/options.ts, never lib/config/resolve.ts (which calls them))",
      "lib/config/types.ts:4 → lib/flows/oauth/refresh.ts (lib/config/types.ts imports no flow: the flows read it, lib/config/resolve.ts calls them)",
      "lib/config/options.ts:4 → lib/flows/oauth/refresh.ts (lib/config/options.ts imports no flow: the flows read it, lib/config/resolve.ts calls them)",
    ]);
  });
});
