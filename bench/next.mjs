/**
 * Latchkey vs next-auth v5 on Next.js 16, side by side in one run (issue 23). `npm run bench:next`
 * (after `npm run build`; it builds bench/next-app with `next build` when that build is missing or
 * older than its sources, or always with --build).
 *
 * Three servers of the same build (bench/next-server.mjs): next-bare (no library), next-latchkey,
 * next-nextauth. Cases, each run on its servers in an order rotated every round:
 *   route     a signed-in Route Handler calling auth(), GET /api/me (Latchkey, next-auth)
 *   wrapped   the same answer from the wrapped form next-auth v5 documents for Route Handlers,
 *             `export const GET = auth((req) => Response.json(req.auth))`, GET /api/wrapped
 *   proxy     a static page behind the proxy's auth() wrapper, signed in, GET /protected
 *   bare      the bare Route Handler GET /api/bare, and the same static page without the proxy
 *             GET /open (on next-bare): the references
 *   floor     GET /api/floor on next-bare: a Route Handler that reads headers() and answers a
 *             session-sized JSON with no library, sent Latchkey's cookies: the floor under any
 *             library's auth(), and so the best ratio to next-auth any library could reach
 *   floor-request  GET /api/floor-request on next-bare: the same from the request the handler is
 *             given (its headers, no next/headers): the floor under the wrapped form
 * Reported per round, then as medians with ranges: Latchkey ÷ next-auth in req/s and in server CPU
 * per request on each route form, each form's floor ÷ next-auth; and the proxy's own cost (CPU per request of /protected minus /open)
 * against the bare route's CPU per request. Signed-in requests carry the cookies a browser holds
 * after each library's own credentials sign-in.
 *
 * Options: --rounds N (default 5), --duration S (default 3), --warmup S (default 2),
 * --connections N (default 10), --build, --no-write (RESULTS.md is rewritten between the
 * next:begin / next:end markers otherwise), --base DIR: also run Latchkey from DIR, another
 * checkout of this repository with its packages built (a `git worktree` of the previous main),
 * side by side in the same rounds: its bench/next-app is built there when missing or stale, its
 * server is DIR's bench/next-server.mjs, and the report adds this checkout ÷ the base (route and
 * proxy, and the wrapped route when the base's app has it) and the base's own ratio to next-auth.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { fmt, load, median, ROUND_OPTIONS, rotation, send, spread, startServer, writeResultsSection } from "./lib.mjs";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const { values: opts } = parseArgs({
  options: {
    ...ROUND_OPTIONS,
    build: { type: "boolean", default: false },
    "no-write": { type: "boolean", default: false },
    base: { type: "string" },
  },
});
const ROUNDS = Number(opts.rounds);
const DURATION = Number(opts.duration);
const WARMUP = Number(opts.warmup);
const CONNECTIONS = Number(opts.connections);
const appDir = here("./next-app/");
const serverFile = here("./next-server.mjs");
/** The other checkout of --base: its app, its server, its built packages. */
const base = opts.base
  ? {
      dir: resolve(opts.base),
      appDir: join(resolve(opts.base), "bench", "next-app"),
      serverFile: join(resolve(opts.base), "bench", "next-server.mjs"),
      dist: join(resolve(opts.base), "packages", "next", "dist"),
    }
  : undefined;
/** Whether the base's app has the wrapped route (checkouts before it was added do not). */
const baseWrapped = base ? existsSync(join(base.appDir, "app", "api", "wrapped", "route.ts")) : false;
if (base && !(existsSync(base.serverFile) && existsSync(base.dist)))
  throw new Error(
    `--base ${opts.base}: no built checkout there (bench/next-server.mjs and packages/next/dist are needed: run npm run build in it)`,
  );
const log = (...a) => console.log(...a);

/** The newest modification time under a folder (sources of the app, the built @latchkey/next). */
function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === ".next" || entry.name === "node_modules") continue;
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/** `next build` of an app folder when its build is missing or older than its sources or `dist`. */
function buildIfNeeded(dir, dist, label) {
  const buildId = join(dir, ".next", "BUILD_ID");
  const stale = !existsSync(buildId) || statSync(buildId).mtimeMs < Math.max(newest(dir), newest(dist));
  if (!opts.build && !stale) return;
  log(`bench:next: next build of ${label}`);
  const nextBin = createRequire(join(dir, "package.json")).resolve("next/dist/bin/next");
  execFileSync(process.execPath, [nextBin, "build"], {
    cwd: dir,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    stdio: "inherit",
  });
}

/** The commit of a checkout, flagged when its packages/ or bench/ has uncommitted changes. */
function commitOf(dir) {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: dir, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--", "packages", "bench"], {
      cwd: dir,
      encoding: "utf8",
    });
    return `${head}${dirty.trim() ? " + uncommitted changes" : ""}`;
  } catch {
    return "?";
  }
}

const json = (body) => {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
};

/** Signs in through the library's own credentials callback; returns the cookies a browser keeps. */
async function signIn(server) {
  const jar = new Map();
  const keep = (setCookies) => {
    for (const header of setCookies) {
      const pair = header.split(";")[0];
      const eq = pair.indexOf("=");
      if (pair.slice(eq + 1) === "") jar.delete(pair.slice(0, eq));
      else jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const csrf = await send(server.port, { path: "/api/auth/csrf" });
  keep(csrf.headers["set-cookie"]);
  const csrfToken = json(csrf.body)?.csrfToken;
  if (!csrfToken) throw new Error(`${server.app}: GET /api/auth/csrf gave no token: ${csrf.body.slice(0, 200)}`);
  const response = await send(server.port, {
    method: "POST",
    path: "/api/auth/callback/credentials",
    headers: { cookie: cookie(), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken, username: "ada", password: "lovelace" }).toString(),
  });
  keep(response.headers["set-cookie"]);
  if (![302, 303].includes(response.status) || !jar.has("authjs.session-token"))
    throw new Error(
      `${server.app}: credentials sign-in failed (${response.status} ${response.headers.location ?? ""})`,
    );
  return cookie();
}

const isAda = (body) => json(body)?.user?.email === "ada@example.com";
/** Each measured request, with the check of a right answer (made once before anything is timed). */
const requests = {
  bare: { request: () => ({ method: "GET", path: "/api/bare" }), check: (r) => r.status === 200 && json(r.body)?.ok },
  open: {
    request: () => ({ method: "GET", path: "/open" }),
    check: (r) => r.status === 200 && r.body.includes("a page behind the proxy"),
  },
  floor: {
    request: (cookie) => ({ method: "GET", path: "/api/floor", headers: { cookie } }),
    check: (r) => r.status === 200 && isAda(r.body),
  },
  floorRequest: {
    request: (cookie) => ({ method: "GET", path: "/api/floor-request", headers: { cookie } }),
    check: (r) => r.status === 200 && isAda(r.body),
  },
  route: {
    request: (cookie) => ({ method: "GET", path: "/api/me", headers: { cookie } }),
    check: (r) => r.status === 200 && isAda(r.body),
  },
  wrapped: {
    request: (cookie) => ({ method: "GET", path: "/api/wrapped", headers: { cookie } }),
    check: (r) => r.status === 200 && isAda(r.body),
  },
  proxy: {
    request: (cookie) => ({ method: "GET", path: "/protected", headers: { cookie } }),
    check: (r) => r.status === 200 && r.body.includes("a page behind the proxy"),
  },
};
// The runs of one round: [label, server, request kind].
const BASE_APP = "next-latchkey@base";
const MEMBERS = [
  ["bare route", "next-bare", "bare"],
  ["bare page", "next-bare", "open"],
  ["headers() route", "next-bare", "floor"],
  ["Latchkey route", "next-latchkey", "route"],
  ["next-auth route", "next-nextauth", "route"],
  ["request route", "next-bare", "floorRequest"],
  ["Latchkey wrapped route", "next-latchkey", "wrapped"],
  ["next-auth wrapped route", "next-nextauth", "wrapped"],
  ["Latchkey proxy", "next-latchkey", "proxy"],
  ["next-auth proxy", "next-nextauth", "proxy"],
  ...(base
    ? [
        ["Latchkey route (base)", BASE_APP, "route"],
        ["Latchkey proxy (base)", BASE_APP, "proxy"],
      ]
    : []),
  ...(baseWrapped ? [["Latchkey wrapped route (base)", BASE_APP, "wrapped"]] : []),
];

buildIfNeeded(appDir, here("../packages/next/dist"), "bench/next-app");
if (base) buildIfNeeded(base.appDir, base.dist, `${base.appDir} (--base)`);
const servers = {};
const cookies = {};
try {
  for (const app of ["next-bare", "next-latchkey", "next-nextauth", ...(base ? [BASE_APP] : [])]) {
    servers[app] =
      app === BASE_APP
        ? await startServer("next-latchkey", { file: base.serverFile })
        : await startServer(app, { file: serverFile });
    if (app !== "next-bare") cookies[app] = await signIn(servers[app]);
  }
  // The floor route carries the same cookies as Latchkey's signed-in requests (Next.js parses them).
  cookies["next-bare"] = cookies["next-latchkey"];
  // Correctness first, including the proxy's redirect without a session.
  for (const [label, app, kind] of MEMBERS) {
    const r = await send(servers[app].port, requests[kind].request(cookies[app]));
    if (!requests[kind].check(r)) throw new Error(`${label}: wrong answer ${r.status} ${r.body.slice(0, 200)}`);
  }
  for (const app of ["next-latchkey", "next-nextauth", ...(base ? [BASE_APP] : [])]) {
    const r = await send(servers[app].port, { path: "/protected" });
    if (r.status !== 307 || !String(r.headers.location).endsWith("/open"))
      throw new Error(`${app}: /protected without a session is not redirected (${r.status})`);
  }
  log("bench:next: every request answers correctly");

  if (WARMUP > 0) {
    for (const [, app, kind] of MEMBERS)
      await load(servers[app], requests[kind].request(cookies[app]), { seconds: WARMUP, connections: CONNECTIONS });
  }
  const runs = [];
  for (let round = 0; round < ROUNDS; round++) {
    const line = [];
    for (const [label, app, kind] of rotation(MEMBERS, round)) {
      const r = await load(servers[app], requests[kind].request(cookies[app]), {
        seconds: DURATION,
        connections: CONNECTIONS,
      });
      const right = r.statuses[200] ?? 0;
      if (right !== r.requests || r.errors || r.serverErrors)
        throw new Error(
          `${label}: ${r.requests - right} answers not 200, ${r.errors} client, ${r.serverErrors} logged errors`,
        );
      runs.push({ round, label, rps: r.rps, cpuUs: r.cpuUs, p99: r.p99, otherLoad: r.otherLoad });
      line.push(`${label} ${fmt(r.rps)}/s ${fmt(r.cpuUs)} µs`);
    }
    log(`round ${round + 1}/${ROUNDS}: ${line.join(" | ")}`);
  }

  const of = (label, round) => runs.find((r) => r.label === label && r.round === round);
  const rounds = [...Array(ROUNDS).keys()];
  const perRound = (f) => rounds.map(f);
  const rows = MEMBERS.map(([label]) => {
    const mine = runs.filter((r) => r.label === label);
    return {
      label,
      rps: median(mine.map((r) => r.rps)),
      cpuUs: median(mine.map((r) => r.cpuUs)),
      p99: median(mine.map((r) => r.p99)),
      otherLoad: median(mine.map((r) => r.otherLoad)),
    };
  });
  const ratios = {
    routeRps: spread(perRound((i) => of("Latchkey route", i).rps / of("next-auth route", i).rps)),
    routeCpu: spread(perRound((i) => of("next-auth route", i).cpuUs / of("Latchkey route", i).cpuUs)),
    proxyRps: spread(perRound((i) => of("Latchkey proxy", i).rps / of("next-auth proxy", i).rps)),
    proxyCpu: spread(perRound((i) => of("next-auth proxy", i).cpuUs / of("Latchkey proxy", i).cpuUs)),
    // The proxy's own cost, as a share of the bare route's cost: < 1 is the goal.
    // What either library could reach at best: next-auth's route against the headers() floor.
    floorRps: spread(perRound((i) => of("headers() route", i).rps / of("next-auth route", i).rps)),
    latchkeyOverFloor: spread(perRound((i) => of("Latchkey route", i).cpuUs - of("headers() route", i).cpuUs)),
    wrappedRps: spread(perRound((i) => of("Latchkey wrapped route", i).rps / of("next-auth wrapped route", i).rps)),
    wrappedCpu: spread(perRound((i) => of("next-auth wrapped route", i).cpuUs / of("Latchkey wrapped route", i).cpuUs)),
    requestFloorRps: spread(perRound((i) => of("request route", i).rps / of("next-auth wrapped route", i).rps)),
    wrappedOverFloor: spread(perRound((i) => of("Latchkey wrapped route", i).cpuUs - of("request route", i).cpuUs)),
    latchkeyProxyVsBare: spread(
      perRound((i) => (of("Latchkey proxy", i).cpuUs - of("bare page", i).cpuUs) / of("bare route", i).cpuUs),
    ),
    nextauthProxyVsBare: spread(
      perRound((i) => (of("next-auth proxy", i).cpuUs - of("bare page", i).cpuUs) / of("bare route", i).cpuUs),
    ),
    ...(base
      ? {
          baseRouteRps: spread(perRound((i) => of("Latchkey route (base)", i).rps / of("next-auth route", i).rps)),
          routeVsBaseRps: spread(perRound((i) => of("Latchkey route", i).rps / of("Latchkey route (base)", i).rps)),
          routeVsBaseCpu: spread(perRound((i) => of("Latchkey route (base)", i).cpuUs / of("Latchkey route", i).cpuUs)),
          proxyVsBaseRps: spread(perRound((i) => of("Latchkey proxy", i).rps / of("Latchkey proxy (base)", i).rps)),
          proxyVsBaseCpu: spread(perRound((i) => of("Latchkey proxy (base)", i).cpuUs / of("Latchkey proxy", i).cpuUs)),
        }
      : {}),
    ...(baseWrapped
      ? {
          baseWrappedRps: spread(
            perRound((i) => of("Latchkey wrapped route (base)", i).rps / of("next-auth wrapped route", i).rps),
          ),
          wrappedVsBaseRps: spread(
            perRound((i) => of("Latchkey wrapped route", i).rps / of("Latchkey wrapped route (base)", i).rps),
          ),
          wrappedVsBaseCpu: spread(
            perRound((i) => of("Latchkey wrapped route (base)", i).cpuUs / of("Latchkey wrapped route", i).cpuUs),
          ),
        }
      : {}),
  };
  const versions = {
    node: process.version,
    next: JSON.parse(readFileSync(createRequire(join(appDir, "package.json")).resolve("next/package.json"), "utf8"))
      .version,
    "next-auth": JSON.parse(
      readFileSync(createRequire(join(appDir, "package.json")).resolve("next-auth/package.json"), "utf8"),
    ).version,
  };
  const range = (s, digits = 2) => `${fmt(s.median, digits)} (${fmt(s.min, digits)}–${fmt(s.max, digits)})`;
  const markdown = [
    `Run of ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC: ${ROUNDS} rounds × ${DURATION} s, ` +
      `${CONNECTIONS} connections, Node ${versions.node}, Next.js ${versions.next}, next-auth ${versions["next-auth"]}, ` +
      `${os.cpus().length} cores, load average at the end ${os.loadavg()[0].toFixed(2)}.`,
    "",
    "| ratio (median of the rounds, range) | value | goal |",
    "| --- | --- | --- |",
    `| signed-in Route Handler calling auth(): Latchkey ÷ next-auth, req/s | ${range(ratios.routeRps)} | ≥ 3 |`,
    `| the same, server CPU per request (next-auth ÷ Latchkey) | ${range(ratios.routeCpu)} | |`,
    `| the ceiling: a library-free headers() route ÷ next-auth, req/s | ${range(ratios.floorRps)} | |`,
    `| Latchkey route − headers() route, server CPU µs per request | ${range(ratios.latchkeyOverFloor, 0)} | |`,
    `| signed-in Route Handler wrapped by auth((req) => …): Latchkey ÷ next-auth, req/s | ${range(ratios.wrappedRps)} | ≥ 3 |`,
    `| the same, server CPU per request (next-auth ÷ Latchkey) | ${range(ratios.wrappedCpu)} | |`,
    `| its ceiling: a library-free route reading the request it is given ÷ next-auth's wrapped route, req/s | ${range(ratios.requestFloorRps)} | |`,
    `| Latchkey wrapped route − that route, server CPU µs per request | ${range(ratios.wrappedOverFloor, 0)} | |`,
    `| proxy-protected page: Latchkey ÷ next-auth, req/s | ${range(ratios.proxyRps)} | |`,
    `| the same, server CPU per request (next-auth ÷ Latchkey) | ${range(ratios.proxyCpu)} | |`,
    `| Latchkey's proxy cost (CPU of /protected − /open) ÷ a bare route's CPU | ${range(ratios.latchkeyProxyVsBare)} | < 1 |`,
    `| next-auth's proxy cost, the same | ${range(ratios.nextauthProxyVsBare)} | |`,
    ...(base
      ? [
          `| the base's route (${commitOf(base.dir)}): Latchkey ÷ next-auth, req/s | ${range(ratios.baseRouteRps)} | |`,
          `| route: this checkout (${commitOf(here(".."))}) ÷ the base, req/s | ${range(ratios.routeVsBaseRps)} | |`,
          `| the same, server CPU per request (base ÷ this) | ${range(ratios.routeVsBaseCpu)} | |`,
          `| proxy: this checkout ÷ the base, req/s | ${range(ratios.proxyVsBaseRps)} | |`,
          `| the same, server CPU per request (base ÷ this) | ${range(ratios.proxyVsBaseCpu)} | |`,
        ]
      : []),
    ...(baseWrapped
      ? [
          `| the base's wrapped route: Latchkey ÷ next-auth, req/s | ${range(ratios.baseWrappedRps)} | |`,
          `| wrapped route: this checkout ÷ the base, req/s | ${range(ratios.wrappedVsBaseRps)} | |`,
          `| the same, server CPU per request (base ÷ this) | ${range(ratios.wrappedVsBaseCpu)} | |`,
        ]
      : []),
    "",
    "| run | median req/s | server CPU µs/req | p99 ms | other load (cores) |",
    "| --- | --- | --- | --- | --- |",
    ...rows.map((r) => `| ${r.label} | ${fmt(r.rps)} | ${fmt(r.cpuUs)} | ${fmt(r.p99, 2)} | ${fmt(r.otherLoad, 2)} |`),
  ].join("\n");
  log(`\n${markdown}\n`);
  if (!opts["no-write"]) {
    writeResultsSection("next", markdown);
    log("bench:next: bench/RESULTS.md updated");
  }
} finally {
  await Promise.all(Object.values(servers).map((s) => s.stop()));
}
