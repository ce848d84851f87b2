/**
 * A build that several test files need (the SvelteKit demo, @latchkey/next's fixture app) is made
 * once per vitest run: the first file to ask builds it, the others (at once, in other workers)
 * wait for that build, and the build is stamped with the run's id so the next run builds from the
 * sources it then finds. A lock folder holds the build; one left by a run that was killed is taken
 * over.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, watch, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { inject } from "vitest";

const read = (file: string) => (existsSync(file) ? readFileSync(file, "utf8") : "");

/** Whether the process that holds the lock is gone (a run that was killed while building). */
function lockIsStale(lock: string): boolean {
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
function lockReleased(lock: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(dirname(lock), () => {
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

/**
 * Runs `build` unless this vitest run already did: `stamp` (a file the build's output holds, so a
 * clean build removes it) names the run that made it, `lock` (a folder beside the sources) is held
 * while building.
 *
 * @example
 * ```ts
 * await oncePerRun({ stamp: join(app, ".next", ".run-id"), lock: join(app, ".build-lock"), build: nextBuild })
 * ```
 */
export async function oncePerRun(options: { stamp: string; lock: string; build: () => Promise<void> }): Promise<void> {
  const { stamp, lock, build } = options;
  const runId = inject("runId");
  for (;;) {
    if (read(stamp) === runId) return;
    try {
      mkdirSync(lock);
    } catch {
      if (lockIsStale(lock)) rmSync(lock, { recursive: true, force: true });
      else await lockReleased(lock);
      continue;
    }
    try {
      writeFileSync(join(lock, "pid"), String(process.pid));
      if (read(stamp) !== runId) {
        await build();
        writeFileSync(stamp, runId);
      }
      return;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}
