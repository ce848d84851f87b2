/**
 * The Edge-middleware fixture (packages/next/fixtures/edge-middleware) built with `next build`
 * once per vitest run and per Next.js major (test/support/once-per-run.ts), and served by
 * `next start`: Next.js 16 (Turbopack) builds the folder itself; Next.js 15 (webpack, the one
 * examples/next-demo-15 installs) builds a copy, `fixtures/edge-middleware-15`, whose
 * `node_modules/next` links to it and whose middleware.ts is `middleware-wrapped.ts`.
 * `NEXT_FIXTURE_PREBUILT=1` skips the builds (made by hand).
 */
import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { oncePerRun } from "../../../test/support/once-per-run.js";
import { type ServerProcess, startServerProcess } from "../../../test/support/server-process.js";
import { freePort, runNextBuild } from "./fixture-app.js";

const fixtures = fileURLToPath(new URL("../fixtures/", import.meta.url));
const source = join(fixtures, "edge-middleware");
const root = fileURLToPath(new URL("../../../", import.meta.url));
const next15 = join(root, "examples", "next-demo-15", "node_modules", "next");
const SECRET = "a-test-secret-of-at-least-thirty-two-characters";

export type NextMajor = 15 | 16;

/** The folder built for `major`, and the `next` it is built and served with. */
function appOf(major: NextMajor): { dir: string; nextBin: string } {
  if (major === 16) return { dir: source, nextBin: join(root, "node_modules", "next", "dist", "bin", "next") };
  return { dir: join(fixtures, "edge-middleware-15"), nextBin: join(next15, "dist", "bin", "next") };
}

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", AUTH_SECRET: SECRET };
  for (const name of ["AUTH_URL", "NEXTAUTH_URL", "NEXTAUTH_SECRET", "AUTH_TRUST_HOST", "PORT", "NODE_ENV"])
    delete e[name];
  for (const name of ["FIXTURE_REVOCATION", "__NEXT_PRIVATE_ORIGIN"]) delete e[name];
  return { ...e, ...extra };
}

/** The Next.js 15 copy: the sources, the wrapped middleware, and Next.js 15 as its `next`. */
function prepareCopy(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  cpSync(source, dir, {
    recursive: true,
    filter: (file) => !/[/\\](\.next|node_modules|\.build-lock|next-env\.d\.ts)$/.test(file),
  });
  cpSync(join(source, "middleware-wrapped.ts"), join(dir, "middleware.ts"));
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(next15, join(dir, "node_modules", "next"), "dir");
}

/** `next build` of the copy for `major` (Next.js 15's made first). */
function nextBuild(major: NextMajor): Promise<void> {
  const { dir, nextBin } = appOf(major);
  if (major === 15) prepareCopy(dir);
  return runNextBuild(nextBin, dir, env());
}

/** Builds the fixture for `major` (once per run); the folder of its build. */
export async function buildEdgeApp(major: NextMajor): Promise<string> {
  const { dir } = appOf(major);
  if (process.env.NEXT_FIXTURE_PREBUILT !== "1") {
    // The copy's folder may not exist yet: its lock lives beside it.
    const lock = major === 16 ? join(dir, ".build-lock") : `${dir}.build-lock`;
    await oncePerRun({ stamp: join(dir, ".next", ".run-id"), lock, build: () => nextBuild(major) });
  }
  if (!existsSync(join(dir, ".next"))) throw new Error(`no build of the Edge-middleware fixture in ${dir}`);
  return dir;
}

/** Serves the built fixture with `next start` on a free port of 127.0.0.1, with `extra` in its environment. */
export async function startEdgeApp(major: NextMajor, extra: Record<string, string> = {}): Promise<ServerProcess> {
  const dir = await buildEdgeApp(major);
  const { nextBin } = appOf(major);
  const port = await freePort();
  return startServerProcess([nextBin, "start", dir, "--port", String(port), "--hostname", "127.0.0.1"], {
    env: env(extra),
    name: `the Edge-middleware fixture (Next.js ${major})`,
    ready: (output) => (/Ready in/.test(output) ? `http://127.0.0.1:${port}` : undefined),
  });
}
