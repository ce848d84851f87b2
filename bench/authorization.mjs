/**
 * Latchkey's authorization server against `oidc-provider`, side by side in one run (issue 37.7):
 * the token endpoint's code exchange, refresh and client credentials, and a resource server's
 * token check against a bare route. `npm run bench:authorization` (after `npm run build`).
 *
 * Each app runs in its own process (bench/authorization-server.mjs) on 127.0.0.1; autocannon
 * drives it from this one (bench/lib.mjs's `load`). Every case is checked once for a right answer
 * before anything is timed, and every timed run must answer 100% with the expected status and no
 * logged server error, or the run stops. In each round the members of a case run back to back in
 * an order rotated every round, so each ratio compares runs taken seconds apart; the report gives
 * medians over the rounds with their range. A code exchange spends a code per request: each of its
 * runs is `--codes` requests, on codes made just before the run (not timed).
 *
 * It refuses to run while the machine's load average is 4 or more (a shared 2-core machine's
 * noise would decide the ratios), unless `--ignore-load`.
 *
 * Options: --rounds N (5), --duration S (3), --warmup S (2), --connections N (10), --codes N (1500),
 * --cases a,b (only these; implies --no-write), --no-write (leave bench/RESULTS.md), --ignore-load.
 */
import os from "node:os";
import { parseArgs } from "node:util";
import { APPS, CASES, labelOf, materialOf, memberRequest, SERVER_FILE, verifyMember } from "./authorization-cases.mjs";
import { fmt, load, median, ROUND_OPTIONS, rotation, startServer, writeResultsSection } from "./lib.mjs";

const { values: opts } = parseArgs({
  options: {
    ...ROUND_OPTIONS,
    codes: { type: "string", default: "1500" },
    cases: { type: "string" },
    "no-write": { type: "boolean", default: false },
    "ignore-load": { type: "boolean", default: false },
  },
});
const rounds = Number(opts.rounds);
const seconds = Number(opts.duration);
const warmup = Number(opts.warmup);
const connections = Number(opts.connections);
const codeCount = Number(opts.codes);

const [loadAverage] = os.loadavg();
if (loadAverage >= 4 && !opts["ignore-load"]) {
  console.error(
    `Load average ${loadAverage.toFixed(1)}: not running (it must be under 4; --ignore-load to run anyway).`,
  );
  process.exit(2);
}

const chosen = opts.cases ? CASES.filter((c) => opts.cases.split(",").includes(c.id)) : CASES;
const write = !opts["no-write"] && !opts.cases;

const servers = {};
for (const app of APPS) servers[app] = await startServer(app, { file: SERVER_FILE });
const material = {};
for (const [app, server] of Object.entries(servers)) material[app] = await materialOf(server);
const requestOf = (kase, member, n) => memberRequest(kase, member, servers[member.app], material[member.app], n);

// Checked before anything is timed.
for (const kase of chosen) {
  for (const member of kase.members) {
    const problem = await verifyMember(kase, member, servers[member.app], material[member.app]);
    if (problem) throw new Error(`${kase.id} on ${labelOf(member)}: ${problem}`);
  }
}

/** One timed (or warm-up) run of a member; stops the bench on any failed answer. */
async function run(kase, member, timed) {
  const request = await requestOf(kase, member, kase.amount ? (timed ? codeCount : Math.ceil(codeCount / 3)) : 0);
  const result = await load(servers[member.app], request, {
    ...(kase.amount ? { amount: request.bodies.length } : { seconds: timed ? seconds : warmup }),
    connections,
  });
  const ok = result.statuses[200] ?? 0;
  if (ok !== result.requests || result.errors || result.serverErrors)
    throw new Error(
      `${kase.id} on ${labelOf(member)}: ${JSON.stringify(result.statuses)}, ${result.errors} errors, ${result.serverErrors} server errors`,
    );
  return result;
}

const results = {};
for (const kase of chosen) {
  for (const member of kase.members) await run(kase, member, false);
  results[kase.id] = kase.members.map(() => []);
}
for (let round = 0; round < rounds; round++) {
  for (const kase of chosen) {
    const order = rotation(
      kase.members.map((_, i) => i),
      round,
    );
    for (const i of order) results[kase.id][i].push(await run(kase, kase.members[i], true));
  }
  console.error(`round ${round + 1}/${rounds} done`);
}
for (const server of Object.values(servers)) await server.stop();

const range = (xs) => `${fmt(Math.min(...xs), 2)}–${fmt(Math.max(...xs), 2)}`;
const lines = [
  `Run of ${new Date().toISOString().slice(0, 16)} UTC: ${rounds} rounds, ${seconds} s per run (a code exchange: ${codeCount} codes per run), ${connections} connections, load average ${loadAverage.toFixed(1)} at the start, Node.js ${process.version}, ${os.cpus().length} CPUs.`,
  "",
  "| case | member | req/s (median) | server CPU µs/request (median) | p99 ms (median) | this ÷ the first member, req/s per round (median, range) | the first member ÷ this, CPU per request per round (median, range) | other load (cores, median) |",
  "|---|---|---|---|---|---|---|---|",
];
for (const kase of chosen) {
  const [first, ...rest] = results[kase.id];
  kase.members.forEach((member, i) => {
    const runs = results[kase.id][i];
    const ratios = i === 0 ? [] : runs.map((r, round) => r.rps / (first?.[round]?.rps ?? Number.NaN));
    const cpuRatios = i === 0 ? [] : runs.map((r, round) => (first?.[round]?.cpuUs ?? Number.NaN) / r.cpuUs);
    lines.push(
      `| ${i === 0 ? kase.title : ""} | ${labelOf(member)} | ${fmt(median(runs.map((r) => r.rps)))} | ${fmt(median(runs.map((r) => r.cpuUs)))} | ${fmt(median(runs.map((r) => r.p99)), 1)} | ${i === 0 ? "1" : `${fmt(median(ratios), 2)} (${range(ratios)})`} | ${i === 0 ? "1" : `${fmt(median(cpuRatios), 2)} (${range(cpuRatios)})`} | ${fmt(median(runs.map((r) => r.otherLoad)), 2)} |`,
    );
  });
  void rest;
}
const markdown = lines.join("\n");
console.log(markdown);
if (write) writeResultsSection("authorization", markdown);
