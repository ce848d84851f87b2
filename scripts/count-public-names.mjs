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

/**
 * The public modules of `packages` (folder names under packages/): for each package its subpaths,
 * each with its source file and the symbols the compiler sees it export, and the program and
 * checker that read them (for a caller that looks further, scripts/public-name-consumers.mjs).
 */
export function publicModules(packages = PACKAGES) {
  const plan = packages.map((name) => ({ name, ...subpaths(join(root, "packages", name)) }));
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
  const modules = plan.map(({ name, found, patterns }) => ({
    name,
    patterns,
    subpaths: found.map(([subpath, file]) => {
      const source = program.getSourceFile(file);
      const symbol = source && checker.getSymbolAtLocation(source);
      if (!symbol) throw new Error(`${file}: not a module the compiler read`);
      return { subpath, file, exports: checker.getExportsOfModule(symbol) };
    }),
  }));
  return { modules, program, checker };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let total = 0;
  for (const { name, subpaths: found, patterns } of publicModules().modules) {
    const distinct = new Set();
    let sum = 0;
    console.log(`@latchkey/${name}`);
    for (const { subpath, exports } of found) {
      const names = exports.map((s) => s.name);
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
}
