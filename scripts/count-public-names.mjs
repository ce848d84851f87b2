#!/usr/bin/env node
// Counts the public names of @latchkey/core and the framework packages: for every subpath of a
// package.json `exports` (but `./package.json` and the `./providers/*` pattern, one module per
// provider, counted apart), the names the TypeScript compiler sees exported by the subpath's source
// module (values and types alike, `export *` followed). Prints, per package, each subpath with its
// count, the subpaths' sum and the distinct names; `--list` prints the names.
//
// Usage: node scripts/count-public-names.mjs [--list]   (after `npm run build`: a framework
// package's `export * from "@latchkey/core/..."` is read from core's dist declarations)
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = fileURLToPath(new URL("..", import.meta.url));
const PACKAGES = ["core", "express", "fastify", "hono", "next", "sveltekit"];
const list = process.argv.includes("--list");

/** The source module of each subpath of `dir`'s package.json exports: `./dist/x.d.ts` → `src/x.ts`. */
function subpaths(dir) {
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const found = [];
  let patterns = 0;
  for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
    if (subpath === "./package.json") continue;
    const types = typeof target === "string" ? target : target.types;
    if (subpath.includes("*")) {
      const folder = join(dir, "src", subpath.slice(2, subpath.indexOf("*")));
      patterns += readdirSync(folder).filter((file) => file.endsWith(".ts") && file !== "index.ts").length;
      continue;
    }
    found.push([subpath, join(dir, types.replace(/^\.\/dist\//, "src/").replace(/\.d\.ts$/, ".ts"))]);
  }
  return { found, patterns };
}

const plan = PACKAGES.map((name) => ({ name, ...subpaths(join(root, "packages", name)) }));
const program = ts.createProgram(
  plan.flatMap((p) => p.found.map(([, file]) => file)),
  {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    jsx: ts.JsxEmit.ReactJSX,
    noEmit: true,
    skipLibCheck: true,
  },
);
const checker = program.getTypeChecker();
let total = 0;
for (const { name, found, patterns } of plan) {
  const distinct = new Set();
  let sum = 0;
  console.log(`@latchkey/${name}`);
  for (const [subpath, file] of found) {
    const source = program.getSourceFile(file);
    const symbol = source && checker.getSymbolAtLocation(source);
    if (!symbol) throw new Error(`${file}: not a module the compiler read`);
    const names = checker.getExportsOfModule(symbol).map((s) => s.name);
    for (const n of names) distinct.add(n);
    sum += names.length;
    console.log(
      `  ${subpath.padEnd(24)} ${String(names.length).padStart(4)}${list ? `  ${names.sort().join(", ")}` : ""}`,
    );
  }
  total += sum;
  console.log(`  subpaths' sum ${sum}, distinct names ${distinct.size}; ./providers/*: ${patterns} provider modules`);
}
console.log(`all packages: ${total} (subpath, name) pairs`);
