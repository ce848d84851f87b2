/**
 * The SvelteKit demo is an application Vite builds (`vite build` with adapter-node, tens of
 * seconds). Every test file that runs it calls `buildSvelteKitDemo()`: the first one of a vitest
 * run builds it, the others (at once, in other workers) wait for that build, and the build is
 * stamped with the run's id so the next run builds from the sources it then finds.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, watch, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { inject } from "vitest";

const demo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "examples", "sveltekit-demo");
/** What `npm start` runs once built. */
export const svelteKitServer = join(demo, "server.js");
const stamp = join(demo, "build", ".run-id");
const lock = join(demo, ".build-lock");

const read = (file: string) => (existsSync(file) ? readFileSync(file, "utf8") : "");

/** Whether the process that holds the lock is gone (a run that was killed while building). */
function lockIsStale(): boolean {
  const pid = Number(read(join(lock, "pid")));
  if (!pid) return false; // taken this instant, its pid not yet written
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

/** Resolves when the lock folder is removed (the build that holds it ended). */
function lockReleased(): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(demo, () => {
      if (!existsSync(lock)) {
        watcher.close();
        resolve();
      }
    });
    if (!existsSync(lock)) {
      watcher.close();
      resolve();
    }
  });
}

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

/** Builds the SvelteKit demo once per vitest run (see the module's comment). */
export async function buildSvelteKitDemo(): Promise<void> {
  const runId = inject("runId");
  for (;;) {
    if (read(stamp) === runId) return;
    try {
      mkdirSync(lock);
    } catch {
      if (lockIsStale()) rmSync(lock, { recursive: true, force: true });
      else await lockReleased();
      continue;
    }
    try {
      writeFileSync(join(lock, "pid"), String(process.pid));
      if (read(stamp) !== runId) {
        await viteBuild();
        writeFileSync(stamp, runId);
      }
      return;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}
