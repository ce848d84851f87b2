/**
 * The builds the runtimes need from this folder's TypeScript, made with esbuild:
 *
 * - for the Edge runtime, the bundle Next.js makes of Edge middleware (webpack's `edge-server`
 *   compiler, `next/dist/build/webpack-config.js`): the conditions `react-server` (the middleware
 *   layer), `edge-light`, then webpack's defaults for the web (`webpack`, `production`, `browser`,
 *   `import`, `module`, `default`); the main fields `edge-light`, `browser`, `module`, `main`; the
 *   five Node.js modules Next.js allows left to the sandbox's `require`, every other one turned into
 *   `__import_unsupported(name)` (`getEdgePolyfilledModules`, `handleWebpackExternalForEdgeRuntime`
 *   of its middleware plugin). So the export conditions `@latchkey/core` chooses are Next.js's.
 * - for Node.js, the TypeScript of the entry and its host compiled, packages left to Node.js's
 *   own resolution (the built `dist` of each workspace package, as for any application).
 *
 * The files go to `node_modules/.cache/latchkey-runtimes/`, under the repository's `node_modules`,
 * so that Node.js resolves the packages they import.
 */
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { builtinModules } from "node:module";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";

/** The repository: the first folder above this file with a `package-lock.json` (this file may run compiled, from `node_modules/.cache`). */
export const root = (() => {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package-lock.json"))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package-lock.json above ${fileURLToPath(import.meta.url)}`);
  }
})();

/** A fresh folder of this run's builds. */
export function buildFolder(): string {
  const parent = join(root, "node_modules", ".cache", "latchkey-runtimes");
  mkdirSync(parent, { recursive: true });
  return mkdtempSync(join(parent, "run-"));
}

/** The Node.js modules Next.js's Edge sandbox lends (`SUPPORTED_NATIVE_MODULES`). */
const EDGE_NATIVE = new Set(["buffer", "events", "assert", "util", "async_hooks"]);
const NODE_BUILTINS = new Set(builtinModules);

const edgeNodeModules: Plugin = {
  name: "next-edge-node-modules",
  setup(b) {
    b.onResolve({ filter: /^(node:)?[a-z_/]+$/ }, ({ path }) => {
      const name = path.replace(/^node:/, "");
      if (!path.startsWith("node:") && !NODE_BUILTINS.has(name)) return undefined;
      if (EDGE_NATIVE.has(name)) return { path: `node:${name}`, external: true };
      return { path: name, namespace: "edge-unsupported" };
    });
    b.onLoad({ filter: /.*/, namespace: "edge-unsupported" }, ({ path }) => ({
      contents: `module.exports = globalThis.__import_unsupported(${JSON.stringify(path)});`,
      loader: "js",
    }));
  },
};

/** `entry` bundled as Next.js bundles Edge code, as a script that sets `globalThis.__entry`. */
export async function bundleForEdge(entry: string, folder: string): Promise<string> {
  const outfile = join(folder, `${basename(dirname(entry))}-${basename(entry).replace(/\.[jt]s$/, "")}.edge.js`);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: "iife",
    globalName: "__entry",
    platform: "browser",
    conditions: ["react-server", "edge-light", "webpack", "production", "module"],
    mainFields: ["edge-light", "browser", "module", "main"],
    define: { "process.env.NEXT_RUNTIME": '"edge"' },
    plugins: [edgeNodeModules],
    logLevel: "error",
  });
  return outfile;
}

/** `entry` (TypeScript) compiled for Node.js, its packages imported from `node_modules`. */
export async function compileForNode(entry: string, folder: string): Promise<string> {
  const outfile = join(folder, `${basename(dirname(entry))}-${basename(entry).replace(/\.ts$/, "")}.mjs`);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    packages: "external",
    logLevel: "error",
  });
  return outfile;
}
