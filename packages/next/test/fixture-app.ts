/**
 * The Next.js app of these tests (packages/next/fixtures/app): built with `next build` once per
 * vitest run (test/support/once-per-run.ts), whichever test file asks first, and served by
 * `next start` for each file that uses it. `NEXT_FIXTURE_PREBUILT=1` skips the build (one made by
 * hand).
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { oncePerRun } from "../../../test/support/once-per-run.js";
import { type ServerProcess, startServerProcess } from "../../../test/support/server-process.js";

const appDir = fileURLToPath(new URL("../fixtures/app/", import.meta.url));
const nextBin = createRequire(join(appDir, "package.json")).resolve("next/dist/bin/next");
const SECRET = "a-test-secret-of-at-least-thirty-two-characters";

function env(): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", AUTH_SECRET: SECRET };
  for (const name of ["AUTH_URL", "NEXTAUTH_URL", "NEXTAUTH_SECRET", "AUTH_TRUST_HOST", "PORT", "NODE_ENV"])
    delete e[name];
  return e;
}

/**
 * `next build` of the app in `dir` with the Next.js of `bin`; rejects with its output when it
 * fails (a type error included). Also the Edge-middleware fixture's (edge-middleware-app.ts).
 */
export function runNextBuild(bin: string, dir: string, environment: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "build"], { cwd: dir, env: environment, stdio: "pipe" });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`next build in ${dir} exited ${code}:\n${output}`)),
    );
  });
}

const nextBuild = () => runNextBuild(nextBin, appDir, env());

/** A free port of 127.0.0.1 for `next start`. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, "127.0.0.1", done));
  const { port } = probe.address() as AddressInfo;
  await new Promise((done) => probe.close(done));
  return port;
}

/** Builds the fixture app (once per run) and serves it with `next start` on a free port of 127.0.0.1. */
export async function startFixtureApp(): Promise<ServerProcess> {
  if (process.env.NEXT_FIXTURE_PREBUILT !== "1")
    await oncePerRun({ stamp: join(appDir, ".next", ".run-id"), lock: join(appDir, ".build-lock"), build: nextBuild });
  const port = await freePort();
  return startServerProcess([nextBin, "start", appDir, "--port", String(port), "--hostname", "127.0.0.1"], {
    env: env(),
    name: "the fixture app",
    ready: (output) => (/Ready in/.test(output) ? `http://127.0.0.1:${port}` : undefined),
  });
}
