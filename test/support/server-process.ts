/**
 * A demo server the tests run as a child process (the Express demo, the Next.js demo): everything
 * it prints is kept, its URL is read from its output once it says it is ready, and `stop()` ends
 * it with SIGTERM and waits for its exit.
 */
import { type ChildProcess, spawn } from "node:child_process";

export interface ServerProcess {
  url: string;
  /** Everything it printed so far. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Runs `node <args>` with `env`; resolves when `ready` finds the URL in its output, rejects with
 * the output when it exits first or (with `timeoutMs`) takes longer.
 *
 * @example
 * ```ts
 * const demo = await startServerProcess([serverJs], { env, name: "the demo", ready: (out) => /on (http:\S+)/.exec(out)?.[1] })
 * ```
 */
export async function startServerProcess(
  args: string[],
  options: { env: NodeJS.ProcessEnv; name: string; ready: (output: string) => string | undefined; timeoutMs?: number },
): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, args, { env: options.env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  const url = await new Promise<string>((resolve, reject) => {
    const bound = options.timeoutMs;
    const timer =
      bound === undefined
        ? undefined
        : setTimeout(() => {
            void stop();
            reject(new Error(`${options.name} did not start in ${bound / 1000} s:\n${output}`));
          }, bound);
    child.stdout?.on("data", () => {
      const url = options.ready(output);
      if (url === undefined) return;
      clearTimeout(timer);
      resolve(url);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited with ${code}:\n${output}`));
    });
  });
  return { url, output: () => output, stop };
}
