/**
 * The runtimes an application is served on for the checks of `scenario.ts`, each from the npm
 * registry (pinned in the root `package.json`, installed by `npm ci`): Node.js (this one), Bun,
 * Deno, Cloudflare's `workerd` through `wrangler dev` (which bundles as a deployment does, with
 * and without `nodejs_compat`), and the Edge runtime as Next.js runs it (`edge-host.ts`). Each
 * driver starts one application from its entry for that runtime and gives back the process,
 * once the server says where it listens.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ServerProcess, startServerProcess } from "../support/server-process.js";
import { bundleForEdge, compileForNode, root } from "./bundle.js";

/**
 * An application and how each runtime starts it: the arguments of `node`, `bun` and `deno run`
 * (an entry of its own, or a launcher of `serve/` and the Worker module it serves; TypeScript or
 * built JavaScript), and its Worker module for workerd and the Edge runtime.
 */
export interface RuntimeApp {
  name: string;
  entries: {
    node: string[];
    bun: string[];
    deno: string[];
    /** `export default { fetch(request, env) }`. */
    worker: string;
  };
}

export interface Runtime {
  name: string;
  /** Starts `app` with its variables `env`; `folder` holds this run's builds and configuration. */
  start(app: RuntimeApp, env: Record<string, string>, folder: string): Promise<ServerProcess>;
}

const bin = (name: string) => join(root, "node_modules", ".bin", name);
/** The URL a server prints once it listens: "listening on <url>" (ours) or "Ready on <url>" (wrangler). */
const listening = (output: string) => /(?:listening|Ready|demo) on (http:\/\/[\w.:[\]-]+)/.exec(output)?.[1];
/** What every child gets: this environment without what would change the application's behaviour. */
const baseEnv = (env: Record<string, string>) => ({ PATH: process.env.PATH, HOME: process.env.HOME, ...env });
const timeoutMs = 60_000;

export const node: Runtime = {
  name: `Node.js ${process.versions.node}`,
  async start(app, env, folder) {
    const args = await Promise.all(
      app.entries.node.map((file) => (file.endsWith(".ts") ? compileForNode(file, folder) : file)),
    );
    return startServerProcess(args, { env: baseEnv(env), name: `${app.name} on Node.js`, ready: listening, timeoutMs });
  },
};

export const bun: Runtime = {
  name: "Bun",
  start: (app, env) =>
    startServerProcess(app.entries.bun, {
      command: bin("bun"),
      env: baseEnv(env),
      name: `${app.name} on Bun`,
      ready: listening,
      timeoutMs,
    }),
};

export const deno: Runtime = {
  name: "Deno",
  start: (app, env) =>
    startServerProcess(
      [
        "run",
        "--no-lock",
        // This folder's TypeScript imports its siblings as `.js`, as tsc wants; the built demo needs nothing.
        ...(app.entries.deno.some((file) => file.endsWith(".ts")) ? ["--sloppy-imports"] : []),
        "--allow-net=127.0.0.1",
        "--allow-env",
        "--allow-read",
        ...app.entries.deno,
      ],
      {
        command: bin("deno"),
        env: baseEnv({ DENO_NO_UPDATE_CHECK: "1", ...env }),
        name: `${app.name} on Deno`,
        ready: listening,
        timeoutMs,
      },
    ),
};

/**
 * `wrangler dev` (workerd, local) on a Worker of compatibility date 2024-09-23, with or without
 * `nodejs_compat`: wrangler bundles the entry as `wrangler deploy` does (its esbuild conditions,
 * and with `nodejs_compat` its polyfills of the Node.js modules workerd lacks), and the variables
 * come from `.dev.vars`. Nothing is fetched from Cloudflare (`Request.cf` is the placeholder).
 */
export function workerd(nodejsCompat: boolean): Runtime {
  const flags = nodejsCompat ? ["nodejs_compat"] : [];
  return {
    name: nodejsCompat ? "workerd (nodejs_compat)" : "workerd",
    start(app, env, folder) {
      const dir = mkdtempSync(join(folder, "worker-"));
      const config = {
        name: "latchkey-runtime",
        main: app.entries.worker,
        compatibility_date: "2024-09-23",
        compatibility_flags: flags,
      };
      writeFileSync(join(dir, "wrangler.json"), JSON.stringify(config));
      writeFileSync(
        join(dir, ".dev.vars"),
        Object.entries(env)
          .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
          .join("\n"),
      );
      return startServerProcess(
        [
          join(root, "node_modules", "wrangler", "bin", "wrangler.js"),
          "dev",
          "--ip",
          "127.0.0.1",
          "--port",
          "0",
          "--inspector-port",
          "0",
        ],
        {
          cwd: dir,
          env: baseEnv({
            CI: "true",
            WRANGLER_SEND_METRICS: "false",
            CLOUDFLARE_CF_FETCH_ENABLED: "false",
            WRANGLER_LOG_PATH: join(dir, "logs"),
          }),
          name: `${app.name} on workerd${nodejsCompat ? " with nodejs_compat" : ""}`,
          ready: listening,
          // A failed build or start leaves `wrangler dev` waiting for the files to change.
          failure: /✘.*ERROR/,
          timeoutMs,
        },
      );
    },
  };
}

/** The Edge runtime as `next start` runs Edge code: Next.js's bundle, Next.js's sandbox. */
export const edge: Runtime = {
  name: "Edge runtime (Next.js)",
  async start(app, env, folder) {
    const bundle = await bundleForEdge(app.entries.worker, folder);
    const host = await compileForNode(join(root, "test", "runtimes", "edge-host.ts"), folder);
    return startServerProcess([host, bundle], {
      env: baseEnv(env),
      name: `${app.name} on the Edge runtime`,
      ready: listening,
      timeoutMs,
    });
  },
};
