#!/usr/bin/env node
// Counts the type assertions in a source folder (default: packages/core/src), as the goal "core
// has fewer than 100 casts" counts them: every `x as T` and `<T>x` except `as const`, with
// `x as unknown as T` counted once. Read with the TypeScript compiler, so `import { a as b }`
// and words in comments or strings are not counted.
//
// Usage: node scripts/count-casts.mjs [folder] [--list]
// Prints {"total", "throughUnknown", "requiredAdapter"}; with --list, each cast as file:line: as T.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const args = process.argv.slice(2);
const root = args.find((a) => !a.startsWith("--")) ?? "packages/core/src";
const list = args.includes("--list");

/** Every .ts file under `dir`, without declaration files. */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

const counts = { total: 0, throughUnknown: 0, requiredAdapter: 0 };
for (const file of sources(root)) {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
      const type = node.type.getText(source);
      // The inner half of `x as unknown as T` is the same cast as its outer half.
      const innerOfDouble = type === "unknown" && ts.isAsExpression(node.parent);
      if (type !== "const" && !innerOfDouble) {
        counts.total++;
        const inner = node.expression;
        if (ts.isAsExpression(inner) && inner.type.getText(source) === "unknown") counts.throughUnknown++;
        if (/^Required<Adapter>/.test(type)) counts.requiredAdapter++;
        if (list) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
          console.log(`${relative(process.cwd(), file)}:${line + 1}: as ${type.replace(/\s+/g, " ")}`);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
console.log(JSON.stringify(counts));
