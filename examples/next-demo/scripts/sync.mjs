/**
 * Copies the demo's shared source (app/, lib/) into another app folder: examples/next-demo-15
 * builds the same pages with Next.js 15 (its own middleware.ts in place of proxy.ts).
 * `node scripts/sync.mjs <folder>`.
 */
import { cpSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const source = join(dirname(fileURLToPath(import.meta.url)), "..");
const target = resolve(process.argv[2] ?? "");
if (!process.argv[2] || target === resolve(source)) throw new Error("usage: node scripts/sync.mjs <other app folder>");
for (const folder of ["app", "lib"]) {
  rmSync(join(target, folder), { recursive: true, force: true });
  cpSync(join(source, folder), join(target, folder), { recursive: true });
}
for (const file of ["next.config.ts", "tsconfig.json"]) cpSync(join(source, file), join(target, file));
