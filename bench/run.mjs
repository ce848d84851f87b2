/**
 * Latchkey vs Auth.js vs bare Express, side by side (issue 8). `npm run bench` (after `npm run build`).
 *
 * Each app runs in its own child process (bench/server.mjs) on 127.0.0.1; autocannon drives it
 * from this process. For every case and round the bare route and the apps of the case are run
 * one after the other, in an order rotated each round (A B C, B C A, ...), so each ratio compares
 * runs taken seconds apart; the figures are medians over rounds. Server CPU per request is the
 * server's process.cpuUsage() delta over the requests it served in the run. "Other load" is the
 * CPU that processes other than the server and this client used meanwhile (from /proc/stat): the
 * noise of a shared machine, reported per case.
 *
 * Options (--help prints this):
 *   --rounds N            rounds (default 5)
 *   --duration S          seconds per run (default 3)
 *   --warmup S            seconds of unrecorded load per case and app before round 1 (default 2)
 *   --connections N       autocannon connections (default 10)
 *   --cases a,b           only these case ids (implies --no-write)
 *   --apps a,b            only these apps of the chosen cases, in this order (bare Express still runs as
 *                         the reference; with --alternate the first app listed is the reference)
 *   --alternate           A/B mode: each case runs only its apps (no bare reference), in rounds that
 *                         alternate their order (A B, B A, A B, ...); the report gives, per round, each
 *                         app against the case's first app (server CPU µs per request and req/s), with
 *                         medians and ranges (implies --no-write; no memory check). With --profile-seconds,
 *                         every compared app of each profiled case is profiled, and the profiles compared
 *                         by self time per function.
 *   --base DIR            also run every app of the chosen cases from DIR (another built checkout of this
 *                         repository, e.g. a `git worktree` of main), labelled "app@base", to compare two
 *                         builds side by side in one run
 *   --rate N              send N requests per second in total (autocannon's overallRate) instead of as many
 *                         as the server answers: both sides of a comparison then do the same work per
 *                         second, so CPU per request is not skewed by how many requests one event-loop
 *                         turn batches (default: unlimited)
 *   --memory-requests N   requests of the memory check (default 100000; 0 skips it)
 *   --profile-seconds S   seconds of load per CPU profile (default 6; 0 skips profiling)
 *   --profile-cases a,b   the cases profiled, each on a fresh server of its first Latchkey app
 *                         (default bare,session,getsession,credentials,db-session-postgres; with
 *                         --alternate every chosen case, on each of its apps)
 *   --no-write            do not rewrite bench/RESULTS.md (bench/results-latest.ndjson is always written:
 *                         the whole report, every single run included, as one line of JSON)
 *   --max-minutes M       hard stop of the whole run (default 40)
 *   --render              only re-render bench/RESULTS.md from bench/results-latest.ndjson
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  answers,
  CASES,
  fmt,
  isBare,
  LABELS,
  load as loadWith,
  median,
  prepare,
  ROUND_OPTIONS,
  rotation,
  spread,
  startServer,
  verify,
} from "./lib.mjs";
import { compareMarkdown, summarise, toMarkdown } from "./profile.mjs";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const { values: opts } = parseArgs({
  options: {
    ...ROUND_OPTIONS,
    cases: { type: "string" },
    "memory-requests": { type: "string", default: "100000" },
    "profile-seconds": { type: "string", default: "6" },
    "profile-cases": { type: "string" },
    apps: { type: "string" },
    alternate: { type: "boolean", default: false },
    base: { type: "string" },
    rate: { type: "string" },
    "no-write": { type: "boolean", default: false },
    "max-minutes": { type: "string", default: "40" },
    help: { type: "boolean", default: false },
    render: { type: "boolean", default: false },
  },
});
if (opts.help) {
  // The comment at the top of this file is the help.
  const text = readFileSync(fileURLToPath(import.meta.url), "utf8");
  console.log(
    text
      .slice(text.indexOf("/**") + 3, text.indexOf("*/"))
      .replace(/^ \* ?/gm, "")
      .trim(),
  );
  process.exit(0);
}
const ROUNDS = Number(opts.rounds);
const DURATION = Number(opts.duration);
const WARMUP = Number(opts.warmup);
const CONNECTIONS = Number(opts.connections);
const MEMORY_REQUESTS = Number(opts["memory-requests"]);
const PROFILE_SECONDS = Number(opts["profile-seconds"]);
const ALTERNATE = opts.alternate;
const BASE = opts.base;
const RATE = opts.rate ? Number(opts.rate) : undefined;
const DEFAULT_PROFILE_CASES = "bare,session,getsession,credentials,db-session-postgres";
const WRITE = !opts["no-write"] && !opts.cases && !opts.apps && !ALTERNATE && !BASE && !RATE;

const TARGETS = [
  { case: "session", what: "signed-in session GET ≥ 0.65× bare", metric: "ratioBare", app: "latchkey", min: 0.65 },
  { case: "session", what: "signed-in session GET ≥ 4.5× Auth.js", metric: "ratioAuthjs", app: "latchkey", min: 4.5 },
  { case: "session", what: "signed-in session p99 ≤ ⅓ of Auth.js's", metric: "p99Ratio", app: "latchkey", max: 1 / 3 },
  { case: "session-anon", what: "no-cookie session GET ≥ 0.8× bare", metric: "ratioBare", app: "latchkey", min: 0.8 },
  { case: "csrf", what: "csrf ≥ 0.8× bare", metric: "ratioBare", app: "latchkey", min: 0.8 },
  { case: "providers", what: "providers ≥ 0.8× bare", metric: "ratioBare", app: "latchkey", min: 0.8 },
  { case: "credentials", what: "credentials sign-in ≥ 0.5× bare", metric: "ratioBare", app: "latchkey", min: 0.5 },
  { case: "getsession", what: "getSession route ≥ 0.7× bare", metric: "ratioBare", app: "latchkey", min: 0.7 },
  {
    case: "db-session-postgres",
    what: "database session GET (PostgreSQL) ≥ 0.4× bare",
    metric: "ratioBare",
    app: "latchkey-postgres",
    min: 0.4,
  },
  {
    case: "db-session-postgres-cache",
    what: "database session GET (PostgreSQL) with session.cache ≥ 0.7× bare",
    metric: "ratioBare",
    app: "latchkey-postgres-cache",
    min: 0.7,
  },
];

// ---------------------------------------------------------------- small helpers

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.log(...a);
const load = (server, request, how) => loadWith(server, request, { connections: CONNECTIONS, rate: RATE, ...how });

// An app of --base runs as "<app>@base": the same server.mjs app, from the other checkout.
const BASE_SUFFIX = "@base";
const appName = (member) => (member.endsWith(BASE_SUFFIX) ? member.slice(0, -BASE_SUFFIX.length) : member);
const label = (member) =>
  member.endsWith(BASE_SUFFIX) ? `${LABELS[appName(member)] ?? appName(member)} (base)` : (LABELS[member] ?? member);
const serverOptions = (member) =>
  member.endsWith(BASE_SUFFIX) ? { file: `${BASE.replace(/\/$/, "")}/bench/server.mjs` } : {};

// ---------------------------------------------------------------- versions and machine

function versions() {
  const require = createRequire(import.meta.url);
  const version = (name) => {
    try {
      return JSON.parse(readFileSync(require.resolve(`${name}/package.json`), "utf8")).version;
    } catch {
      try {
        return JSON.parse(readFileSync(here(`../node_modules/${name}/package.json`), "utf8")).version;
      } catch {
        return "?";
      }
    }
  };
  let build = "?";
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: here(".."), encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--", "packages"], {
      cwd: here(".."),
      encoding: "utf8",
    });
    build = `${head}${dirty.trim() ? " + uncommitted changes in packages/" : ""}`;
  } catch {}
  let postgres = "?";
  try {
    postgres = execFileSync("psql", ["-V"], { encoding: "utf8" }).trim();
  } catch {}
  return {
    latchkey: build,
    node: process.version,
    express: version("express4"),
    "@latchkey/express": version("@latchkey/express"),
    "@latchkey/core": version("@latchkey/core"),
    "@latchkey/sql-adapter": version("@latchkey/sql-adapter"),
    "@auth/express": version("@auth/express"),
    "@auth/core": version("@auth/core"),
    autocannon: version("autocannon"),
    kysely: version("kysely"),
    "better-sqlite3": version("better-sqlite3"),
    pg: version("pg"),
    postgres,
    ...(BASE ? { base: gitBuild(BASE) } : {}),
  };
}

/** The commit of a checkout (for --base), flagged when its packages/ has uncommitted changes. */
function gitBuild(dir) {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: dir, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--", "packages"], { cwd: dir, encoding: "utf8" });
    return `${head}${dirty.trim() ? " + uncommitted changes in packages/" : ""}`;
  } catch {
    return "?";
  }
}

function machine() {
  const cpus = os.cpus();
  return {
    cpu: `${cpus[0]?.model ?? "?"} × ${cpus.length}`,
    memory: `${(os.totalmem() / 2 ** 30).toFixed(0)} GiB`,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

/** The newest modification time (ms) under packages/*\/dist: tells whether a rebuild happened mid-run. */
function distStamp() {
  let newest = 0;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".js")) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  const packages = here("../packages");
  for (const name of readdirSync(packages)) {
    if (existsSync(`${packages}/${name}/dist`)) walk(`${packages}/${name}/dist`);
  }
  return newest;
}

// ---------------------------------------------------------------- main

const children = [];
async function stopAll() {
  await Promise.allSettled(children.map((c) => c.stop()));
  children.length = 0;
}
const watchdog = setTimeout(async () => {
  console.error(`bench: stopped after ${opts["max-minutes"]} minutes (--max-minutes)`);
  await stopAll();
  process.exit(2);
}, Number(opts["max-minutes"]) * 60_000);
watchdog.unref();
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, async () => {
    await stopAll();
    process.exit(130);
  });
}

async function main() {
  if (!existsSync(here("../packages/express/dist/index.js"))) {
    throw new Error("packages/express/dist is missing: run `npm run build` first");
  }
  const skipped = [];
  let cases = CASES;
  if (opts.cases) {
    const wanted = new Set(opts.cases.split(","));
    cases = cases.filter((c) => wanted.has(c.id));
  }
  if (opts.apps) {
    // In the order given: with --alternate the first is the reference.
    const wanted = opts.apps.split(",");
    cases = cases.map((c) => ({ ...c, apps: wanted.filter((a) => c.apps.includes(a)) })).filter((c) => c.apps.length);
  }
  if (BASE) {
    if (!existsSync(`${BASE}/bench/server.mjs`) || !existsSync(`${BASE}/packages/express/dist/index.js`))
      throw new Error(`--base ${BASE}: no built checkout there (bench/server.mjs, packages/express/dist)`);
    cases = cases.map((c) => ({ ...c, apps: c.apps.flatMap((a) => [a, `${a}${BASE_SUFFIX}`]) }));
  }
  if (ALTERNATE) cases = cases.filter((c) => c.id !== "bare" && c.apps.length > 1);
  if (!cases.length) throw new Error("no case left to run (check --cases, --apps)");
  const dbCases = cases.filter((c) => c.id.startsWith("db-session"));
  if (dbCases.length && !existsSync(here("../packages/sql-adapter/dist/index.js"))) {
    skipped.push("database-session cases: packages/sql-adapter/dist is missing (not built)");
    cases = cases.filter((c) => !c.id.startsWith("db-session"));
  }
  if (cases.some((c) => c.id.startsWith("db-session-postgres")) && !(await answers(5432))) {
    skipped.push("database session on PostgreSQL: nothing answers on 127.0.0.1:5432 (scripts/ensure-services.sh)");
    cases = cases.filter((c) => !c.id.startsWith("db-session-postgres"));
  }
  const appsNeeded = [
    ...new Set([
      ...(ALTERNATE ? [] : ["bare", ...cases.flatMap((c) => c.bare ?? [])]),
      ...cases.flatMap((c) => c.apps),
    ]),
  ];
  const memoryCheck = MEMORY_REQUESTS > 0 && !ALTERNATE;
  if (memoryCheck && !appsNeeded.includes("latchkey")) appsNeeded.push("latchkey");
  if (
    appsNeeded.some((app) => app.startsWith("sveltekit")) &&
    !existsSync(here("../examples/sveltekit-demo/build/handler.js"))
  ) {
    throw new Error(
      "examples/sveltekit-demo/build is missing: run `npm run build -w @latchkey/sveltekit-demo` first (or --apps without sveltekit)",
    );
  }

  const buildAtStart = distStamp();
  const versionsAtStart = versions();
  log(
    `bench: ${ROUNDS} rounds × ${DURATION} s per run, ${WARMUP} s warm-up, ${CONNECTIONS} connections` +
      `${RATE ? `, ${RATE} req/s` : ""}${ALTERNATE ? ", alternating A/B" : ""}`,
  );
  log(`bench: starting ${appsNeeded.join(", ")}`);
  const servers = {};
  for (const app of appsNeeded) {
    try {
      servers[app] = await startServer(appName(app), serverOptions(app));
      children.push(servers[app]);
      servers[app].prepared = await prepare(servers[app]);
    } catch (e) {
      if (!appName(app).startsWith("latchkey-") && appName(app) !== "authjs-postgres") throw e;
      skipped.push(`${app}: ${String(e.message).split("\n")[0]}`);
      cases = cases.filter((c) => !c.apps.includes(app));
    }
  }
  for (const s of skipped) log(`bench: SKIPPED ${s}`);

  // Correctness first: every case must answer as expected, or the numbers mean nothing.
  for (const kase of cases) {
    for (const app of kase.apps) {
      const problem = await verify(kase, servers[app]);
      if (problem) throw new Error(`${kase.id} on ${app}: ${problem}`);
    }
  }
  log("bench: every case answers correctly");

  const timed = cases.filter((c) => c.id !== "bare");
  // Each case's members take turns in an order rotated every round; in A/B mode without bare Express.
  // A framework's case runs against that framework's bare route (`kase.bare`), the others against Express's.
  const groups = timed.map((kase) => ({ kase, members: ALTERNATE ? kase.apps : [kase.bare ?? "bare", ...kase.apps] }));
  const bareCase = CASES.find((c) => c.id === "bare");
  const requestFor = (kase, app) => (isBare(app) ? bareCase : kase).request(servers[app].prepared);

  if (WARMUP > 0) {
    log("bench: warming up");
    for (const app of appsNeeded.filter(isBare)) await load(servers[app], bareCase.request({}), { seconds: WARMUP });
    for (const { kase } of groups) {
      for (const app of kase.apps) await load(servers[app], requestFor(kase, app), { seconds: WARMUP });
    }
  }

  const runs = [];
  const loadByRound = [];
  for (let round = 0; round < ROUNDS; round++) {
    loadByRound.push(os.loadavg()[0]);
    log(`\nbench: round ${round + 1}/${ROUNDS} (load average ${os.loadavg()[0].toFixed(2)})`);
    for (const { kase, members } of groups) {
      const line = [];
      for (const app of rotation(members, round)) {
        const r = await load(servers[app], requestFor(kase, app), { seconds: DURATION });
        const { window: _window, ...figures } = r;
        runs.push({ round, case: kase.id, app, ...figures });
        const expected = isBare(app) ? 200 : kase.status;
        const wrong = r.requests - (r.statuses[expected] ?? 0);
        line.push(`${app} ${fmt(r.rps)}/s p99 ${fmt(r.p99, 2)} ms ${fmt(r.cpuUs)} µs`);
        if (wrong || r.errors || r.serverErrors) {
          throw new Error(
            `${kase.id} on ${app}: ${wrong} answers not ${expected}, ${r.errors} client errors, ` +
              `${r.serverErrors} server errors (${JSON.stringify(r.statuses)})`,
          );
        }
        await sleep(150);
      }
      log(`  ${kase.id.padEnd(20)} ${line.join(" | ")}`);
    }
  }

  // ------------------------------------------------------------ aggregate
  const rows = [];
  const bareRuns = runs.filter((r) => r.app === "bare");
  const summary = (list) => ({
    rps: median(list.map((r) => r.rps)),
    rpsMin: Math.min(...list.map((r) => r.rps)),
    rpsMax: Math.max(...list.map((r) => r.rps)),
    p50: median(list.map((r) => r.p50)),
    p99: median(list.map((r) => r.p99)),
    cpuUs: median(list.map((r) => r.cpuUs)),
    otherLoad: median(list.map((r) => r.otherLoad)),
    queriesPerThousand: list.every((r) => typeof r.queriesPerThousand === "number")
      ? median(list.map((r) => r.queriesPerThousand))
      : undefined,
    n: list.length,
  });
  if (!ALTERNATE) rows.push({ case: "bare", title: bareCase.title, app: "bare", ...summary(bareRuns), ratioBare: 1 });
  // The other frameworks' bare routes, each the reference of that framework's cases.
  for (const app of ALTERNATE ? [] : appsNeeded.filter((a) => isBare(a) && a !== "bare")) {
    const own = runs.filter((r) => r.app === app);
    rows.push({ case: "bare", title: bareCase.title, app, bare: app, ...summary(own), ratioBare: 1 });
  }
  for (const { kase } of groups) {
    for (const app of kase.apps) {
      const mine = runs.filter((r) => r.case === kase.id && r.app === app);
      const perRound = (other, field = "rps") =>
        mine.map((r) => {
          const o = runs.find((x) => x.case === kase.id && x.app === other && x.round === r.round);
          return o ? r[field] / o[field] : Number.NaN;
        });
      const ratiosBare = ALTERNATE ? [] : perRound(kase.bare ?? "bare");
      const row = {
        case: kase.id,
        title: kase.title,
        app,
        bare: kase.bare ?? "bare",
        ...summary(mine),
        cpuUsMin: Math.min(...mine.map((r) => r.cpuUs)),
        cpuUsMax: Math.max(...mine.map((r) => r.cpuUs)),
        ratioBare: median(ratiosBare),
        ratioBareMin: Math.min(...ratiosBare),
        ratioBareMax: Math.max(...ratiosBare),
      };
      // A/B: this app against the case's first app, round by round (runs seconds apart).
      if (ALTERNATE && app !== kase.apps[0]) {
        row.reference = kase.apps[0];
        row.cpuVsRef = spread(perRound(kase.apps[0], "cpuUs"));
        row.rpsVsRef = spread(perRound(kase.apps[0], "rps"));
      }
      if (app === "latchkey" && kase.apps.includes("authjs")) {
        const ratiosA = perRound("authjs");
        row.ratioAuthjs = median(ratiosA);
        row.ratioAuthjsMin = Math.min(...ratiosA);
        row.ratioAuthjsMax = Math.max(...ratiosA);
        row.p99Ratio = median(perRound("authjs", "p99"));
      }
      rows.push(row);
    }
  }
  const targets = (ALTERNATE ? [] : TARGETS)
    .filter((t) => rows.some((r) => r.case === t.case && r.app === t.app))
    .map((t) => {
      const row = rows.find((r) => r.case === t.case && r.app === t.app);
      const value = row[t.metric];
      const met = t.min !== undefined ? value >= t.min : value <= t.max;
      return { ...t, value, met };
    });

  // ------------------------------------------------------------ memory
  let memory = null;
  if (memoryCheck && servers.latchkey) {
    log(`\nbench: memory check, ${MEMORY_REQUESTS} signed-in session GETs on Latchkey`);
    const kase = CASES.find((c) => c.id === "session");
    const request = kase.request(servers.latchkey.prepared);
    await load(servers.latchkey, request, { amount: 5000 });
    const start = await servers.latchkey.ask("gc");
    const r = await load(servers.latchkey, request, { amount: MEMORY_REQUESTS });
    const end = await servers.latchkey.ask("gc");
    const wrong = r.requests - (r.statuses[200] ?? 0);
    memory = {
      requests: r.requests,
      wrong,
      gc: start.gc,
      before: start.heapUsed,
      after: end.heapUsed,
      change: (end.heapUsed - start.heapUsed) / start.heapUsed,
    };
    log(
      `  heap after GC: ${(memory.before / 2 ** 20).toFixed(2)} MiB → ${(memory.after / 2 ** 20).toFixed(2)} MiB ` +
        `(${(100 * memory.change).toFixed(2)}%) over ${r.requests} requests`,
    );
  }
  await stopAll();

  const buildAfterRounds = distStamp();
  // ------------------------------------------------------------ profiles
  const profiles = [];
  if (PROFILE_SECONDS > 0) {
    const dir = here("./profiles");
    mkdirSync(dir, { recursive: true });
    const defaultProfiled = ALTERNATE ? cases.map((c) => c.id).join(",") : DEFAULT_PROFILE_CASES;
    const profiled = (opts["profile-cases"] ?? defaultProfiled)
      .split(",")
      .map((id) => cases.find((c) => c.id === id))
      .filter(Boolean);
    const jobs = profiled.flatMap((kase) =>
      ALTERNATE
        ? kase.apps.map((app) => ({ kase, app }))
        : [{ kase, app: kase.apps.find((a) => a.startsWith("latchkey")) ?? kase.apps[0] }],
    );
    for (const { kase, app } of jobs) {
      const { id } = kase;
      if (!app) continue;
      const name = `${app}-${id}.cpuprofile`;
      rmSync(`${dir}/${name}`, { force: true });
      log(`\nbench: profiling ${app} on ${id} (${PROFILE_SECONDS} s)`);
      const server = await startServer(appName(app), {
        ...serverOptions(app),
        execArgv: ["--cpu-prof", `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}`, "--cpu-prof-interval=250"],
      });
      children.push(server);
      server.prepared = await prepare(server);
      await load(server, kase.request(server.prepared), { seconds: Math.max(1, WARMUP) });
      const r = await load(server, kase.request(server.prepared), { seconds: PROFILE_SECONDS });
      await server.stop();
      children.length = 0;
      const file = `${dir}/${name}`;
      if (!existsSync(file)) {
        log(`  no profile written (${readdirSync(dir).join(", ")})`);
        continue;
      }
      // Only the samples of the load window: not start-up, sign-in or shutdown.
      const s = summarise(JSON.parse(readFileSync(file, "utf8")), {
        window: r.window,
        requests: r.served,
        cpuUs: r.cpuUs,
        top: ALTERNATE ? Number.POSITIVE_INFINITY : undefined,
      });
      profiles.push({
        id,
        app,
        title: kase.title,
        rps: r.rps,
        cpuUs: r.cpuUs,
        file: `bench/profiles/${name}`,
        summary: s,
      });
      for (const e of s.self.slice(0, 8)) log(`  ${e.percent.toFixed(1).padStart(5)}%  ${e.key}`);
    }
  }

  // ------------------------------------------------------------ report
  const report = {
    date: new Date().toISOString(),
    machine: machine(),
    versions: versionsAtStart,
    build: { atStart: buildAtStart, afterRounds: buildAfterRounds, atEnd: distStamp() },
    settings: {
      rounds: ROUNDS,
      duration: DURATION,
      warmup: WARMUP,
      connections: CONNECTIONS,
      profileSeconds: PROFILE_SECONDS,
      alternate: ALTERNATE,
      rate: RATE,
    },
    skipped,
    loadByRound,
    rows,
    targets,
    memory,
    profiles,
    runs,
  };
  // One line of JSON: a data file, not one for the formatter (biome checks *.json files).
  writeFileSync(here("./results-latest.ndjson"), `${JSON.stringify(report)}\n`);
  const markdown = render(report);
  log(`\n${markdown}`);
  if (WRITE) writeResults(markdown);
}

/** Rewrites the part of bench/RESULTS.md between the markers (the rest is written by hand). */
function writeResults(markdown) {
  {
    const file = here("./RESULTS.md");
    const begin = "<!-- bench:begin -->";
    const end = "<!-- bench:end -->";
    const old = existsSync(file) ? readFileSync(file, "utf8") : `# Benchmark results\n\n${begin}\n${end}\n`;
    const i = old.indexOf(begin);
    const j = old.indexOf(end);
    const next =
      i >= 0 && j > i
        ? `${old.slice(0, i + begin.length)}\n${markdown}\n${old.slice(j)}`
        : `${old.trimEnd()}\n\n${begin}\n${markdown}\n${end}\n`;
    writeFileSync(file, next);
    log("bench: bench/RESULTS.md updated");
  }
}

/** The report of an A/B run (--alternate): each app against its case's first app, round by round. */
function renderAlternate(report, out) {
  const { rows, profiles, settings: s } = report;
  const range = (x, digits) => `${fmt(x.median, digits)} (${fmt(x.min, digits)}–${fmt(x.max, digits)})`;
  out.push(
    `A/B mode: the apps of each case take turns (A B, B A, A B, ...), ${s.rate ? `${s.rate} req/s offered` : "unlimited rate"}; ` +
      "the ratios are per round (runs seconds apart), then the median and range over the rounds.",
    "",
    "| case | app | server CPU µs/req (range) | req/s (range) | p50 ms | p99 ms | CPU ÷ first app's (range) | req/s ÷ first app's (range) | other load |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const r of rows) {
    out.push(
      `| ${r.title} | ${label(r.app)} | ${fmt(r.cpuUs)} (${fmt(r.cpuUsMin)}–${fmt(r.cpuUsMax)}) | ` +
        `${fmt(r.rps)} (${fmt(r.rpsMin)}–${fmt(r.rpsMax)}) | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ` +
        `${r.cpuVsRef ? range(r.cpuVsRef, 3) : "1"} | ${r.rpsVsRef ? range(r.rpsVsRef, 3) : "1"} | ${fmt(r.otherLoad, 2)} |`,
    );
  }
  out.push("", `Load average at the start of each round: ${report.loadByRound.map((x) => x.toFixed(2)).join(", ")}.`);
  if (profiles.length) {
    out.push("", "### CPU profiles", "");
    out.push(
      `\`node --cpu-prof --cpu-prof-interval=250\`, a fresh server per app under the same load for ${s.profileSeconds} s ` +
        "after the warm-up; only the samples of the timed window count.",
    );
    for (const id of [...new Set(profiles.map((p) => p.id))]) {
      const mine = profiles.filter((p) => p.id === id);
      for (const p of mine) {
        const heading = `${label(p.app)}, ${p.title}: ${fmt(p.rps)} req/s, ${fmt(p.cpuUs)} µs CPU/req while profiled`;
        out.push("", toMarkdown(heading, p.summary));
      }
      for (const p of mine.slice(1)) {
        out.push("", compareMarkdown(`${label(p.app)} − ${label(mine[0].app)}`, mine[0].summary, p.summary));
      }
    }
  }
  return out.join("\n");
}

function render(report) {
  const { rows, targets, memory, profiles, machine: m, versions: v, settings: s } = report;
  const out = [];
  out.push(`Run of ${report.date}: ${s.rounds} rounds × ${s.duration} s per run (after ${s.warmup} s of warm-up`);
  out.push(`per case and app), ${s.connections} connections, loopback. Figures are medians over the rounds.`);
  out.push("");
  out.push(`Machine: ${m.cpu}, ${m.memory}, ${m.os}.`);
  out.push(
    `Versions: ${Object.entries(v)
      .map(([k, x]) => `${k} ${x}`)
      .join(", ")}.`,
  );
  out.push("");
  const b = report.build;
  const clock = (ms) => new Date(ms).toISOString().slice(11, 19);
  if (b && b.atEnd !== b.atStart) {
    out.push(
      `**Warning: packages/*/dist was rebuilt during this run** (newest build ${clock(b.atStart)} UTC at the ` +
        `start, ${clock(b.atEnd)} at the end). The timed rounds ran the code their servers loaded at the start; ` +
        `the profiles ran on processes started after the rounds (build of ${clock(b.afterRounds)}).`,
      "",
    );
  }
  if (report.skipped.length) out.push(`Left out: ${report.skipped.join("; ")}.`, "");
  if (s.alternate) return renderAlternate(report, out);
  out.push(
    "| case | app | req/s | req/s range | p50 ms | p99 ms | server CPU µs/req | × bare (range) | Latchkey / Auth.js (range) | bare CPU ÷ CPU | other load |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  );
  // Bare CPU per request ÷ the case's, per round, median: the ratio the req/s ratio would be if the
  // server alone set the pace, much less sensitive to the other load than req/s.
  const cpuRatio = (r) =>
    median(
      report.runs
        .filter((x) => x.case === r.case && x.app === r.app)
        .map((x) => {
          const bare = report.runs.find(
            (b) => b.app === (r.bare ?? "bare") && b.case === x.case && b.round === x.round,
          );
          return bare ? bare.cpuUs / x.cpuUs : Number.NaN;
        }),
    );
  for (const r of rows) {
    const bare = isBare(r.app) ? "1" : `${fmt(r.ratioBare, 2)} (${fmt(r.ratioBareMin, 2)}–${fmt(r.ratioBareMax, 2)})`;
    const vsA =
      r.ratioAuthjs !== undefined
        ? `${fmt(r.ratioAuthjs, 2)} (${fmt(r.ratioAuthjsMin, 2)}–${fmt(r.ratioAuthjsMax, 2)})`
        : "";
    out.push(
      `| ${r.title} | ${label(r.app)} | ${fmt(r.rps)} | ${fmt(r.rpsMin)}–${fmt(r.rpsMax)} | ${fmt(r.p50, 2)} | ` +
        `${fmt(r.p99, 2)} | ${fmt(r.cpuUs)} | ${bare} | ${vsA} | ${isBare(r.app) ? "1" : fmt(cpuRatio(r), 2)} | ${fmt(r.otherLoad, 2)} |`,
    );
  }
  out.push("");
  out.push(
    '"other load": CPU cores busy with processes other than the server and the load generator during the runs ' +
      `(median); the machine has ${os.cpus().length}. Load average at the start of each round: ` +
      `${report.loadByRound.map((x) => x.toFixed(2)).join(", ")}.`,
  );
  const counted = rows.filter((r) => typeof r.queriesPerThousand === "number");
  if (counted.length) {
    out.push(
      "",
      "Database statements per 1,000 session reads (counted on each connection of the app's PostgreSQL pool, over the timed runs, median; one session is read over and over):",
      "",
      "| case | app | statements per 1,000 reads |",
      "|---|---|---:|",
    );
    for (const r of counted) out.push(`| ${r.title} | ${label(r.app)} | ${fmt(r.queriesPerThousand, 1)} |`);
  }
  if (targets.length)
    out.push("", "Targets (medians of the per-round ratios):", "", "| target | measured | met |", "|---|---:|---|");
  for (const t of targets) out.push(`| ${t.what} | ${fmt(t.value, 3)} | ${t.met ? "yes" : "**no**"} |`);
  if (memory) {
    out.push(
      "",
      `Memory: ${memory.requests} signed-in session GETs on the Latchkey server (after the timed rounds and ` +
        `5,000 warm-up requests); heap used after GC ${(memory.before / 2 ** 20).toFixed(2)} MiB before, ` +
        `${(memory.after / 2 ** 20).toFixed(2)} MiB after: ${memory.change >= 0 ? "+" : ""}${(100 * memory.change).toFixed(2)}% ` +
        `(target: within 5%: ${Math.abs(memory.change) <= 0.05 ? "met" : "**not met**"}).`,
    );
  }
  if (profiles.length) {
    out.push("", "### CPU profiles", "");
    out.push(
      "`node --cpu-prof --cpu-prof-interval=250` on a fresh server process (bare Express as the reference, then Latchkey) under the same load " +
        `for ${s.profileSeconds} s after 1 s of warm-up; only the samples of the timed window are counted (start-up, sign-in and warm-up are cut). The .cpuprofile files are in bench/profiles/ (open them in Chrome DevTools).`,
    );
    for (const p of profiles) {
      const heading = `${label(p.app)}, ${p.title}: ${fmt(p.rps)} req/s, ${fmt(p.cpuUs)} µs CPU/req while profiled`;
      out.push("", toMarkdown(heading, p.summary));
    }
  }
  return out.join("\n");
}

if (opts.render) {
  const report = JSON.parse(readFileSync(here("./results-latest.ndjson"), "utf8"));
  report.settings.profileSeconds ??= PROFILE_SECONDS;
  // A/B reports (--alternate) are printed, never put in place of the full run's tables.
  if (report.settings.alternate) log(render(report));
  else writeResults(render(report));
  process.exit(0);
}

main()
  .catch(async (e) => {
    console.error(`bench: FAILED: ${e?.stack ?? e}`);
    process.exitCode = 1;
  })
  .finally(async () => {
    await stopAll();
    clearTimeout(watchdog);
  });
