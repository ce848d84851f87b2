/**
 * Application instances as separate Node processes, for the tests that prove what several
 * instances share (sessions, revocations, refresh locks). Each fixture in `../fixtures/` is an
 * Express app configured by its environment that prints `listening <port>` once it accepts
 * connections: the start resolves on that line (never after a guessed delay) and rejects when the
 * process exits or stays silent for 20 seconds (times the run's time scale, see vitest.config.ts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { inject } from "vitest";

export interface Instance {
  /** `http://localhost:<port>` */
  url: string;
  child: ChildProcess;
  /** What the process wrote to stderr (its logger's lines). */
  log: string[];
}

/** Starts and stops the instances of one test file. */
export interface Instances {
  /** Starts `fixtures/<fixture>` with `env` added to this process's environment. */
  start(fixture: string, env: Record<string, string>): Promise<Instance>;
  /** Stops one instance and waits until it has exited. */
  stop(instance: Instance): Promise<void>;
  /** Stops every instance started so far and waits until each has exited. */
  stopAll(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/**
 * The instances of one test file; call `stopAll()` in its `afterAll`.
 *
 * @example
 * ```ts
 * const instances = childInstances()
 * afterAll(() => instances.stopAll())
 * const a = await instances.start("instance-jwt.mjs", { AUTH_SECRET: SECRET, STORE: "redis" })
 * await fetch(`${a.url}/auth/session`)
 * ```
 */
export function childInstances(): Instances {
  const children: ChildProcess[] = [];
  return {
    start(fixture, env) {
      const child = spawn(process.execPath, [new URL(`../fixtures/${fixture}`, import.meta.url).pathname], {
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      children.push(child);
      const log: string[] = [];
      child.stderr?.on("data", (d) => log.push(String(d)));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${fixture} did not start: ${log.join("")}`)),
          20_000 * inject("timeScale"),
        );
        child.stdout?.on("data", (data) => {
          const match = /listening (\d+)/.exec(String(data));
          if (match) {
            clearTimeout(timer);
            resolve({ url: `http://localhost:${match[1]}`, child, log });
          }
        });
        child.once("exit", (code) => {
          clearTimeout(timer);
          reject(new Error(`${fixture} exited with ${code}: ${log.join("")}`));
        });
      });
    },
    stop: (instance) => exited(instance.child),
    stopAll: () => Promise.all(children.map(exited)).then(() => undefined),
  };
}
