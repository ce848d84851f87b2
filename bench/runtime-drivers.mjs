/**
 * What bench/runtimes.mjs and bench/workerd-profile.mjs share: the runtime tests' drivers
 * (test/runtimes/runtimes.ts, compiled here with esbuild), a Worker module of bench/runtime-apps
 * as they start it, the CPU time of a server's process tree, and the session cookies both
 * libraries read (sealed by `@auth/core/jwt` with the apps' secret).
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { encode } from "@auth/core/jwt";
import autocannon from "autocannon";
import { build } from "esbuild";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

/** The drivers of test/runtimes (`node`, `bun`, `deno`, `workerd(nodejsCompat, args)`, `edge`) and `buildFolder`. */
export async function loadDrivers() {
  const drivers = here("../node_modules/.cache/latchkey-runtimes/bench-drivers.mjs");
  await build({
    stdin: {
      contents: 'export * from "./runtimes.ts"; export { buildFolder } from "./bundle.ts";',
      resolveDir: here("../test/runtimes"),
      loader: "ts",
    },
    outfile: drivers,
    bundle: true,
    format: "esm",
    platform: "node",
    packages: "external",
    logLevel: "error",
  });
  return import(drivers);
}

/** A Worker module (`file`, default bench/runtime-apps/<name>.ts) as the drivers start it. */
export function runtimeApp(name, file = here(`./runtime-apps/${name}.ts`)) {
  return {
    name,
    entries: {
      node: [here("../test/runtimes/serve/node.ts"), file],
      bun: [here("../test/runtimes/serve/bun.ts"), file],
      deno: [here("../test/runtimes/serve/deno.ts"), file],
      worker: file,
    },
  };
}

/** CPU seconds of `pid` and every process under it (/proc; clock ticks of 1/100 s). */
export function treeCpu(pid) {
  const stats = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const text = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
      stats.set(Number(entry), { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // the process ended meanwhile
    }
  }
  let ticks = 0;
  const queue = [pid];
  while (queue.length) {
    const current = queue.pop();
    ticks += stats.get(current)?.ticks ?? 0;
    for (const [child, stat] of stats) if (stat.ppid === current) queue.push(child);
  }
  return ticks / 100;
}

/** A fresh secret for the apps (`AUTH_SECRET`). */
export const newSecret = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");

/** `count` session cookies of the same user, each sealed anew (a fresh `jti`, IV and tag) by Auth.js. */
export function sessionCookies(secret, count) {
  const sealed = () =>
    encode({
      token: { name: "Ada Lovelace", email: "ada@example.com", sub: "u1" },
      secret,
      salt: "authjs.session-token",
    });
  return Promise.all(Array.from({ length: count }, async () => `authjs.session-token=${await sealed()}`));
}

/**
 * Loads `GET /auth/session` of `server` for `seconds`, each request carrying the next cookie of
 * `cookies` (round robin): the answers, answers per second, p99 and server CPU per answer. Any
 * answer but a 2xx fails the run.
 */
export async function loadSession(server, cookies, seconds, connections = 10) {
  const before = treeCpu(server.pid);
  const started = process.hrtime.bigint();
  let next = 0;
  const request = {
    method: "GET",
    path: "/auth/session",
    setupRequest: (req) => ({ ...req, headers: { ...req.headers, cookie: cookies[next++ % cookies.length] } }),
  };
  const result = await new Promise((resolve, reject) =>
    autocannon({ url: server.url, requests: [request], connections, duration: seconds, timeout: 10 }, (error, res) =>
      error ? reject(error) : resolve(res),
    ),
  );
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = treeCpu(server.pid) - before;
  const answered = result["2xx"];
  if (result.non2xx || result.errors || result.timeouts)
    throw new Error(`${server.label}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
  return { answered, rps: answered / wall, cpuUs: (cpu / answered) * 1e6, p99: result.latency.p99 };
}
