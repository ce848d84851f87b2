/**
 * The SvelteKit demo is an application Vite builds (`vite build` with adapter-node, tens of
 * seconds). Every test file that runs it calls `buildSvelteKitDemo()`: it is built once per vitest
 * run (test/support/once-per-run.ts).
 */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { oncePerRun } from "../support/once-per-run.js";

const demo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "examples", "sveltekit-demo");
/** What `npm start` runs once built. */
export const svelteKitServer = join(demo, "server.js");

/** Runs `vite build` in the demo; rejects with its output when it fails. */
function viteBuild(): Promise<void> {
  return new Promise((resolve, reject) => {
    const vite = join(demo, "..", "..", "node_modules", "vite", "bin", "vite.js");
    const child = spawn(process.execPath, [vite, "build"], { cwd: demo, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`vite build failed:\n${output}`))));
  });
}

/** Builds the SvelteKit demo once per vitest run. */
export function buildSvelteKitDemo(): Promise<void> {
  return oncePerRun({ stamp: join(demo, "build", ".run-id"), lock: join(demo, ".build-lock"), build: viteBuild });
}
