/**
 * The runtimes an application is served on for the checks of `scenario.ts`, each from the npm
 * registry (pinned in the root `package.json`, installed by `npm ci`): Node.js (this one), Bun,
 * Deno, Cloudflare's `workerd` on the bundle `wrangler deploy` makes (with and without
 * `nodejs_compat`), and the Edge runtime as Next.js runs it (`edge-host.ts`). Each
 * driver starts one application from its entry for that runtime and gives back the process,
 * once the server says where it listens.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
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
/** The URL a server prints once it listens: "listening on <url>" (ours), "Latchkey demo on <url>" (the demo's). */
const listening = (output: string) => /(?:listening|demo) on (http:\/\/[\w.:[\]-]+)/.exec(output)?.[1];
/** What every child gets: this environment without what would change the application's behaviour. */
const baseEnv = (env: Record<string, string>) => ({ PATH: process.env.PATH, HOME: process.env.HOME, ...env });
const timeoutMs = 60_000;
const run = promisify(execFile);

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

/** A socket listening on 127.0.0.1 at a free port, to hand to a child (`socket` of `startServerProcess`). */
async function listeningSocket(): Promise<{ fd: number; url: string; close(): void }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  // Node.js exposes no public accessor of a listening socket's descriptor; its handle has one.
  const fd = (server as unknown as { _handle: { fd: number } })._handle.fd;
  return { fd, url: `http://127.0.0.1:${port}`, close: () => server.close() };
}

/**
 * Cloudflare's workerd running a Worker of compatibility date 2024-09-23, with or without
 * `nodejs_compat`, as Cloudflare runs a deployment: `wrangler deploy --dry-run` bundles the entry
 * (wrangler's esbuild conditions, and with `nodejs_compat` its polyfills of the Node.js modules
 * workerd lacks), and `workerd serve` runs that bundle with the variables as text bindings, on a
 * socket this process opened (no `wrangler dev` and its proxy in front). Nothing is fetched from
 * Cloudflare. `args` go to `workerd serve` as well (the bench's profiler passes `--inspector-addr`).
 */
export function workerd(nodejsCompat: boolean, args: string[] = []): Runtime {
  const flags = nodejsCompat ? ["nodejs_compat"] : [];
  const name = `${nodejsCompat ? "with" : "without"} nodejs_compat`;
  return {
    name: `workerd ${name}`,
    async start(app, env, folder) {
      const dir = mkdtempSync(join(folder, "worker-"));
      const config = {
        name: "latchkey-runtime",
        main: app.entries.worker,
        compatibility_date: "2024-09-23",
        compatibility_flags: flags,
      };
      writeFileSync(join(dir, "wrangler.json"), JSON.stringify(config));
      const wrangler = join(root, "node_modules", "wrangler", "bin", "wrangler.js");
      const wranglerEnv = {
        CI: "true",
        WRANGLER_HIDE_BANNER: "true",
        WRANGLER_SEND_METRICS: "false",
        WRANGLER_LOG_PATH: join(dir, "logs"),
      };
      await run(process.execPath, [wrangler, "deploy", "--dry-run", "--outdir", "out"], {
        cwd: dir,
        env: baseEnv(wranglerEnv),
      }).catch((error: { stdout?: string; stderr?: string }) => {
        throw new Error(`wrangler could not bundle ${app.name} (${name}):\n${error.stdout}${error.stderr}`);
      });
      const main = readdirSync(join(dir, "out")).find((file) => file.endsWith(".js"));
      const bindings = Object.entries(env).map(
        ([key, value]) => `(name = ${JSON.stringify(key)}, text = ${JSON.stringify(value)})`,
      );
      writeFileSync(
        join(dir, "config.capnp"),
        `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [(name = ${JSON.stringify(main)}, esModule = embed ${JSON.stringify(`out/${main}`)})],
  compatibilityDate = "2024-09-23",
  compatibilityFlags = ${JSON.stringify(flags)},
  bindings = [${bindings.join(", ")}],
);
`,
      );
      const socket = await listeningSocket();
      try {
        return await startServerProcess(["serve", "config.capnp", "--socket-fd", "http=3", ...args], {
          command: join(root, "node_modules", "workerd", "bin", "workerd"),
          cwd: dir,
          env: baseEnv({}),
          name: `${app.name} on workerd ${name}`,
          ready: listening,
          socket,
        });
      } finally {
        socket.close(); // the child holds the socket now
      }
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
