// The fast part of the test suite, for `npm run test:unit`: every test file that needs no database
// server, no browser and no child process. A file is left out when it, or a helper it imports
// from the test folders (relative imports, followed), imports one of HEAVY. Sources (src/) are not
// followed: a module that can talk to Redis costs nothing until a test connects it.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/** Module specifiers that mean a database server, a browser or a child process. */
export const HEAVY = new Set([
  "pg",
  "mysql2",
  "mysql2/promise",
  "ioredis",
  "better-sqlite3",
  "kysely",
  "playwright-core",
  "child_process",
  "node:child_process",
  "@latchkey/adapter-test/services",
  "@latchkey/sql-adapter",
  "@latchkey/redis-adapter",
]);

const IMPORT = /(?:^|[\s;])(?:import|export)\s[^"';]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function specifiers(text) {
  return [...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2]);
}

function testFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "dist" ? [] : testFiles(path);
    return entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** The heavy module a file reaches through its test helpers, or null. */
function heavyImport(file, seen = new Set()) {
  if (seen.has(file)) return null;
  seen.add(file);
  for (const specifier of specifiers(readFileSync(file, "utf8"))) {
    if (HEAVY.has(specifier)) return specifier;
    if (!specifier.startsWith(".")) continue;
    const target = resolve(dirname(file), specifier);
    if (target.split(sep).includes("src")) continue;
    const source = [target.replace(/\.m?js$/, ".ts"), target, `${target}.ts`].find(
      (f) => existsSync(f) && !f.endsWith(".d.ts"),
    );
    const found = source ? heavyImport(source, seen) : null;
    if (found) return found;
  }
  return null;
}

/** Every test file of `root` (paths relative to it) that needs none of HEAVY. */
export function unitSuites(root) {
  const folders = ["packages", "examples"].flatMap((folder) =>
    readdirSync(join(root, folder), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(root, folder, entry.name, "test")),
  );
  return [...folders, join(root, "test"), join(root, "bench", "test")]
    .flatMap(testFiles)
    .filter((file) => heavyImport(file) === null)
    .map((file) => relative(root, file).split(sep).join("/"))
    .sort();
}
