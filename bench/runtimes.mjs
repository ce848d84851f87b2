/**
 * The session read on every runtime: Latchkey and Auth.js side by side, each against a route with
 * no library on the same runtime (issue 36, item 8). `npm run build && npm run bench:runtimes`.
 *
 * Each runtime is started by the drivers of the runtime tests (test/runtimes/runtimes.ts, compiled
 * here with esbuild): Node.js, Bun and Deno serve a Worker module through their own server
 * (`@hono/node-server`, `Bun.serve`, `Deno.serve`), workerd with `workerd serve` on the bundle of
 * `wrangler deploy --dry-run` (with and without `nodejs_compat`), and the Edge runtime as `next start` runs it (a
 * bundle made with Next.js's Edge conditions in Next.js's sandbox). On each runtime three Worker
 * modules of bench/runtime-apps run at once, each in its own process: `bare` (the floor: a route
 * with no library), `latchkey` (`Auth()` of @latchkey/core) and `authjs` (`Auth()` of @auth/core),
 * the two libraries with the same configuration. The request is a signed-in
 * `GET /auth/session` carrying one session cookie sealed with the apps' secret by
 * `@auth/core/jwt` (each library reads the other's cookies), so both do the same work: open the
 * JWE, run the callbacks, answer the session. Every app's answer is checked before it is loaded.
 *
 * In each round every app is loaded for --duration seconds by autocannon (from this process), in an
 * order rotated each round; the ratios are taken within a round, and the report gives their median
 * and range over the rounds. Server CPU per request is the CPU time of the app's process tree
 * (/proc: wrangler and its workerd, the Edge host, Bun, Deno) over the requests it answered.
 *
 * Options:
 *   --rounds N        rounds (default 5)
 *   --duration S      seconds per run (default 3)
 *   --warmup S        seconds of unrecorded load per app before round 1 (default 2)
 *   --connections N   autocannon connections (default 10)
 *   --runtimes a,b    only these runtimes: node, bun, deno, workerd-nodejs-compat, workerd, edge
 *   --no-write        do not rewrite the part of bench/RESULTS.md between its runtimes markers
 *   --base DIR        also run Latchkey from DIR (another built checkout of this repository, e.g.
 *                     /work/main), as "latchkey@base" in the same rounds, and report its server CPU
 *                     per request ÷ this checkout's (an A/B of two builds on each runtime; implies
 *                     --no-write)
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { encode } from "@auth/core/jwt";
import autocannon from "autocannon";
import { build } from "esbuild";
import { fmt, median, ROUND_OPTIONS, rotation, spread, writeResultsSection } from "./lib.mjs";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const { values: opts } = parseArgs({
  options: {
    ...ROUND_OPTIONS,
    runtimes: { type: "string" },
    base: { type: "string" },
    "no-write": { type: "boolean", default: false },
  },
});
const rounds = Number(opts.rounds);
const duration = Number(opts.duration);
const connections = Number(opts.connections);
const log = (...args) => console.error(...args);

// The runtime tests' drivers, compiled next to the packages they import.
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
const { buildFolder, bun, deno, edge, node, workerd } = await import(drivers);

const RUNTIMES = {
  node,
  bun,
  deno,
  "workerd-nodejs-compat": workerd(true),
  workerd: workerd(false),
  edge,
};
const BASE = opts.base;
const APPS = ["bare", "latchkey", "authjs", ...(BASE ? ["latchkey@base"] : [])];
const LABELS = { bare: "no library", latchkey: "Latchkey", authjs: "Auth.js", "latchkey@base": "Latchkey (base)" };

/** A Worker module of bench/runtime-apps as the drivers start it (`latchkey@base`: the one of --base, on its packages). */
const appOf = (name) => {
  const file =
    name === "latchkey@base"
      ? join(resolve(BASE), "bench", "runtime-apps", "latchkey.ts")
      : here(`./runtime-apps/${name}.ts`);
  return {
    name,
    entries: {
      node: [here("../test/runtimes/serve/node.ts"), file],
      bun: [here("../test/runtimes/serve/bun.ts"), file],
      deno: [here("../test/runtimes/serve/deno.ts"), file],
      worker: file,
    },
  };
};

/** CPU seconds of `pid` and every process under it (/proc; clock ticks of 1/100 s). */
function treeCpu(pid) {
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

/**
 * Loads `GET /auth/session` of `server` for `seconds`, each request carrying the next cookie of
 * `cookies` (round robin): answers per second, p99 and server CPU per answer.
 */
async function load(server, cookies, seconds) {
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
  return { rps: answered / wall, cpuUs: (cpu / answered) * 1e6, p99: result.latency.p99 };
}

/** The answer each app must give: the user of the cookie, or the bare route's body. */
async function verify(server, app, cookie) {
  const response = await fetch(`${server.url}/auth/session`, { headers: { cookie } });
  const body = await response.json();
  const ok = app === "bare" ? body?.ok === true : body?.user?.email === "ada@example.com";
  if (response.status !== 200 || !ok)
    throw new Error(`${server.label} answered ${response.status} ${JSON.stringify(body)}: not what it is measured on`);
}

const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
const sealed = () =>
  encode({
    token: { name: "Ada Lovelace", email: "ada@example.com", sub: "u1" },
    secret,
    salt: "authjs.session-token",
  });
/**
 * The cases: one user's cookie read again and again (what a signed-in browser sends; a library
 * may keep what it opened), and a cookie never seen before on every request (5,000 of them, more
 * than Latchkey keeps opened: every read decrypts).
 */
const CASES = {
  returning: { title: "the same session cookie on every request", cookies: [`authjs.session-token=${await sealed()}`] },
  fresh: {
    title: "a cookie not seen before on every request (5,000 in turn)",
    cookies: await Promise.all(Array.from({ length: 5000 }, async () => `authjs.session-token=${await sealed()}`)),
  },
};
const cookie = CASES.returning.cookies[0];
const chosen = opts.runtimes?.split(",") ?? Object.keys(RUNTIMES);
const folder = buildFolder();
const report = [];
const startedAt = new Date();
const loadBefore = loadavg()[0];

for (const id of chosen) {
  const runtime = RUNTIMES[id];
  if (!runtime) throw new Error(`unknown runtime ${id}: one of ${Object.keys(RUNTIMES).join(", ")}`);
  log(`bench:runtimes: ${runtime.name}`);
  const servers = {};
  try {
    for (const app of APPS) {
      servers[app] = await runtime.start(appOf(app), { AUTH_SECRET: secret }, folder);
      servers[app].label = `${LABELS[app]} on ${runtime.name}`;
      await verify(servers[app], app, cookie);
    }
    const runs = {};
    for (const [id, kase] of Object.entries(CASES)) {
      for (const app of APPS) await load(servers[app], kase.cookies, Number(opts.warmup));
      runs[id] = Object.fromEntries(APPS.map((app) => [app, []]));
      for (let round = 0; round < rounds; round++) {
        for (const app of rotation(APPS, round)) runs[id][app].push(await load(servers[app], kase.cookies, duration));
        log(
          `  ${id}, round ${round + 1}: ${APPS.map((app) => `${app} ${fmt(runs[id][app].at(-1).rps)} req/s`).join(", ")}`,
        );
      }
    }
    for (const [id, byApp] of Object.entries(runs)) {
      const ratios = (a, b, key) =>
        byApp[a].map((run, i) => (key === "rps" ? run.rps / byApp[b][i].rps : byApp[b][i].cpuUs / run.cpuUs));
      const medians = (app) => ({
        rps: median(byApp[app].map((r) => r.rps)),
        cpuUs: median(byApp[app].map((r) => r.cpuUs)),
        p99: median(byApp[app].map((r) => r.p99)),
      });
      report.push({
        runtime: runtime.name,
        case: id,
        apps: Object.fromEntries(APPS.map((app) => [app, medians(app)])),
        latchkeyOverAuthjs: { rps: ratios("latchkey", "authjs", "rps"), cpu: ratios("latchkey", "authjs", "cpu") },
        latchkeyOverBare: ratios("latchkey", "bare", "rps"),
        authjsOverBare: ratios("authjs", "bare", "rps"),
        // Server CPU per request of the --base build ÷ this one's (above 1: this build is cheaper).
        baseOverBranch: BASE ? ratios("latchkey", "latchkey@base", "cpu") : undefined,
      });
    }
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
  }
}
rmSync(folder, { recursive: true, force: true });

const ratio = (xs) => {
  const { median: m, min, max } = spread(xs);
  return `${fmt(m, 2)}× (${fmt(min, 2)}–${fmt(max, 2)})`;
};
const markdown = [
  `Run of ${startedAt.toISOString().slice(0, 16).replace("T", " ")} UTC: ${rounds} rounds of ${duration} s per app, ${connections} connections, load average ${fmt(loadBefore, 1)} before and ${fmt(loadavg()[0], 1)} after (2 cores). Ratios: median over the rounds (range). "× Auth.js": Latchkey's req/s ÷ Auth.js's, and Auth.js's server CPU per request ÷ Latchkey's. "÷ no library": the app's req/s ÷ the floor's on the same runtime.`,
  "",
  ...Object.entries(CASES).flatMap(([id, kase]) => [
    `**Signed-in GET /auth/session, ${kase.title}**`,
    "",
    "| runtime | no library req/s | Latchkey req/s | Auth.js req/s | Latchkey × Auth.js (req/s) | Latchkey × Auth.js (CPU/req) | Latchkey ÷ no library | Auth.js ÷ no library | server CPU µs/req: no library, Latchkey, Auth.js |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...report
      .filter((r) => r.case === id)
      .map(
        (r) =>
          `| ${r.runtime} | ${fmt(r.apps.bare.rps)} | ${fmt(r.apps.latchkey.rps)} | ${fmt(r.apps.authjs.rps)} | ${ratio(r.latchkeyOverAuthjs.rps)} | ${ratio(r.latchkeyOverAuthjs.cpu)} | ${ratio(r.latchkeyOverBare)} | ${ratio(r.authjsOverBare)} | ${fmt(r.apps.bare.cpuUs)}, ${fmt(r.apps.latchkey.cpuUs)}, ${fmt(r.apps.authjs.cpuUs)} |`,
      ),
    "",
  ]),
  ...(BASE
    ? [
        `**A/B: Latchkey from ${BASE} (base) against this checkout, in the same rounds**`,
        "",
        "| runtime | case | server CPU µs/req: base, this checkout | base ÷ this checkout (CPU/req) |",
        "| --- | --- | --- | --- |",
        ...report.map(
          (r) =>
            `| ${r.runtime} | ${r.case} | ${fmt(r.apps["latchkey@base"].cpuUs)}, ${fmt(r.apps.latchkey.cpuUs)} | ${ratio(r.baseOverBranch)} |`,
        ),
        "",
      ]
    : []),
].join("\n");
log(`\n${markdown}\n`);
if (!opts["no-write"] && !opts.runtimes && !BASE) {
  writeResultsSection("runtimes", markdown);
  log("bench:runtimes: bench/RESULTS.md updated");
}
