/**
 * A server the tests run as a child process (the Express demo, the Next.js demo, an application on
 * another runtime: Bun, Deno, wrangler, ...): everything
 * it prints is kept, its URL is read from its output once it says it is ready, and `stop()` ends
 * it with SIGTERM and waits for its exit.
 */
import { type ChildProcess, spawn } from "node:child_process";

export interface ServerProcess {
  url: string;
  /** The child's process id (its own children, if any, are under it). */
  pid: number | undefined;
  /** Everything it printed so far. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Runs `node <args>` (or `command <args>`, in `cwd`) with `env`; resolves when `ready` finds the URL
 * in its output, rejects with the output when it exits first or (with `timeoutMs`) takes longer.
 *
 * @example
 * ```ts
 * const demo = await startServerProcess([serverJs], { env, name: "the demo", ready: (out) => /on (http:\S+)/.exec(out)?.[1] })
 * ```
 */
export async function startServerProcess(
  args: string[],
  options: {
    env: NodeJS.ProcessEnv;
    name: string;
    ready: (output: string) => string | undefined;
    timeoutMs?: number;
    command?: string;
    cwd?: string;
    /**
     * A socket already listening at `url`, handed to the child as its file descriptor 3 (`workerd
     * serve --socket-fd`): the server is ready once it runs, connections wait in the socket's
     * backlog until it accepts them, and `ready` is not asked.
     */
    socket?: { fd: number; url: string };
  },
): Promise<ServerProcess> {
  const child: ChildProcess = spawn(options.command ?? process.execPath, args, {
    env: options.env,
    cwd: options.cwd,
    stdio: ["ignore", "pipe", "pipe", ...(options.socket ? [options.socket.fd] : [])],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  const socket = options.socket;
  if (socket) return { url: socket.url, pid: child.pid, output: () => output, stop };
  const url = await new Promise<string>((resolve, reject) => {
    const bound = options.timeoutMs;
    const timer =
      bound === undefined
        ? undefined
        : setTimeout(() => {
            void stop();
            reject(new Error(`${options.name} did not start in ${bound / 1000} s:\n${output}`));
          }, bound);
    // Until it is ready: once it is, what it prints (an error it logs included) is its own business.
    const look = () => {
      const url = options.ready(output);
      if (url === undefined) return;
      done();
      resolve(url);
    };
    const done = () => {
      clearTimeout(timer);
      child.stdout?.off("data", look);
      child.stderr?.off("data", look);
    };
    child.stdout?.on("data", look);
    child.stderr?.on("data", look);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited with ${code}:\n${output}`));
    });
  });
  return { url, pid: child.pid, output: () => output, stop };
}
