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
 *   --jwe-floor       also run bench/runtime-apps/jwe-floor.ts (a Worker that only opens the JWE with
 *                     Web Crypto and answers the session: the least work a fresh read can be) in the
 *                     same rounds, and report Auth.js's and Latchkey's server CPU per request ÷ its
 *                     (Auth.js ÷ floor: the most any library could show against Auth.js there)
 */
import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { fmt, median, ROUND_OPTIONS, rotation, spread, writeResultsSection } from "./lib.mjs";
import { loadDrivers, loadSession, newSecret, runtimeApp, sessionCookies } from "./runtime-drivers.mjs";

const { values: opts } = parseArgs({
  options: {
    ...ROUND_OPTIONS,
    runtimes: { type: "string" },
    base: { type: "string" },
    "jwe-floor": { type: "boolean", default: false },
    "no-write": { type: "boolean", default: false },
  },
});
const rounds = Number(opts.rounds);
const duration = Number(opts.duration);
const connections = Number(opts.connections);
const log = (...args) => console.error(...args);

const { buildFolder, bun, deno, edge, node, workerd } = await loadDrivers();

const RUNTIMES = {
  node,
  bun,
  deno,
  "workerd-nodejs-compat": workerd(true),
  workerd: workerd(false),
  edge,
};
const BASE = opts.base;
const FLOOR = opts["jwe-floor"];
const APPS = ["bare", "latchkey", "authjs", ...(BASE ? ["latchkey@base"] : []), ...(FLOOR ? ["jwe-floor"] : [])];
const LABELS = {
  bare: "no library",
  latchkey: "Latchkey",
  authjs: "Auth.js",
  "latchkey@base": "Latchkey (base)",
  "jwe-floor": "the JWE floor",
};

/** A Worker module of bench/runtime-apps as the drivers start it (`latchkey@base`: the one of --base, on its packages). */
const appOf = (name) =>
  name === "latchkey@base"
    ? runtimeApp(name, join(resolve(BASE), "bench", "runtime-apps", "latchkey.ts"))
    : runtimeApp(name);

/** The answer each app must give: the user of the cookie, or the bare route's body. */
async function verify(server, app, cookie) {
  const response = await fetch(`${server.url}/auth/session`, { headers: { cookie } });
  const body = await response.json();
  const ok = app === "bare" ? body?.ok === true : body?.user?.email === "ada@example.com";
  if (response.status !== 200 || !ok)
    throw new Error(`${server.label} answered ${response.status} ${JSON.stringify(body)}: not what it is measured on`);
}

const secret = newSecret();
/**
 * The cases: one user's cookie read again and again (what a signed-in browser sends; a library
 * may keep what it opened), and a cookie never seen before on every request (5,000 of them, more
 * than Latchkey keeps opened: every read decrypts).
 */
const CASES = {
  returning: { title: "the same session cookie on every request", cookies: await sessionCookies(secret, 1) },
  fresh: {
    title: "a cookie not seen before on every request (5,000 in turn)",
    cookies: await sessionCookies(secret, 5000),
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
      for (const app of APPS) await loadSession(servers[app], kase.cookies, Number(opts.warmup), connections);
      runs[id] = Object.fromEntries(APPS.map((app) => [app, []]));
      for (let round = 0; round < rounds; round++) {
        for (const app of rotation(APPS, round))
          runs[id][app].push(await loadSession(servers[app], kase.cookies, duration, connections));
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
        // Server CPU per request of each library ÷ the JWE floor's (how far each is from the least work).
        overFloor: FLOOR
          ? { authjs: ratios("jwe-floor", "authjs", "cpu"), latchkey: ratios("jwe-floor", "latchkey", "cpu") }
          : undefined,
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
  ...(FLOOR
    ? [
        "**The JWE floor (bench/runtime-apps/jwe-floor.ts: the JWE opened with Web Crypto and the session answered, nothing else), in the same rounds**",
        "",
        "| runtime | case | server CPU µs/req: no library, JWE floor, Latchkey, Auth.js | Auth.js ÷ floor (CPU/req) | Latchkey ÷ floor (CPU/req) |",
        "| --- | --- | --- | --- | --- |",
        ...report.map(
          (r) =>
            `| ${r.runtime} | ${r.case} | ${fmt(r.apps.bare.cpuUs)}, ${fmt(r.apps["jwe-floor"].cpuUs)}, ${fmt(r.apps.latchkey.cpuUs)}, ${fmt(r.apps.authjs.cpuUs)} | ${ratio(r.overFloor.authjs)} | ${ratio(r.overFloor.latchkey)} |`,
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
