/**
 * The Next.js demo as the tests run it: `next build` of an app folder (examples/next-demo with
 * Next.js 16, examples/next-demo-15 with Next.js 15), then its start script (`next start` beside
 * the local IdP and mail catcher) as a child process on a free port with its own data folder.
 */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ServerProcess, startServerProcess } from "../../../test/support/server-process.js";

const demoDir = join(dirname(fileURLToPath(import.meta.url)), "..");
export const appDirs = { 16: demoDir, 15: join(demoDir, "..", "next-demo-15") } as const;

/** This process's environment less the demo's own settings, without telemetry. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
  for (const name of ["PORT", "HOST", "AUTH_SECRET", "AUTH_URL", "NEXTAUTH_URL", "NEXTAUTH_SECRET", "DATABASE_URL"])
    delete env[name];
  for (const name of ["EMAIL_SERVER", "REDIS_URL", "NODE_ENV", "__NEXT_PRIVATE_ORIGIN"]) delete env[name];
  return { ...env, ...extra };
}

/** Runs a command to its end; rejects with everything it printed when it fails. */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0
        ? resolve(output)
        : reject(new Error(`${command} ${args.join(" ")} in ${cwd} exited ${code}:\n${output}`)),
    );
  });
}

/**
 * `npm run build` in the app folder (Next.js 15's first copies the shared source in). Skipped when
 * NEXT_DEMO_PREBUILT=1, to iterate on the tests against a build made by hand.
 */
export async function buildDemo(appDir: string): Promise<void> {
  if (process.env.NEXT_DEMO_PREBUILT === "1") return;
  await run("npm", ["run", "build", "--silent"], appDir, cleanEnv({}));
}

export type NextDemo = ServerProcess;

/** Starts the built app through its start script (with `env` besides); resolves once Next.js is ready. */
export async function startNextDemo(appDir: string, env: Record<string, string> = {}): Promise<NextDemo> {
  const dataDir = mkdtempSync(join(tmpdir(), "latchkey-next-demo-"));
  return startServerProcess([join(demoDir, "scripts", "start.mjs"), appDir], {
    // No internet here: the breached-password check of the sign-up and reset forms is off.
    env: cleanEnv({ PORT: "0", DEMO_DATA_DIR: dataDir, DEMO_BREACHED_CHECK: "off", ...env }),
    name: "the Next.js demo",
    ready: (output) =>
      output.includes("storage:") ? /Latchkey Next\.js demo on (http:\/\/\S+)/.exec(output)?.[1] : undefined,
  });
}
