/**
 * Summarises a V8 CPU profile (`node --cpu-prof`): top functions by self time, the same grouped by
 * where the code lives, and the top Latchkey functions by inclusive time; given several profiles,
 * also where each differs from the first (self time by function and by area).
 *
 *   node bench/profile.mjs bench/profiles/latchkey-session.cpuprofile [other.cpuprofile ...]
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Where a script lives, as short as it stays readable. */
export function shortUrl(url) {
  if (!url) return "";
  let path = url.startsWith("file://") ? fileURLToPath(url) : url;
  if (path.startsWith(root)) path = path.slice(root.length);
  const nm = path.lastIndexOf("node_modules/");
  if (nm >= 0) return path.slice(nm + "node_modules/".length);
  // Another checkout of this repository (bench/run.mjs --base): named as this one's files are.
  for (const dir of ["/packages/", "/bench/"]) {
    const at = path.lastIndexOf(dir);
    if (at >= 0 && path.startsWith("/")) return path.slice(at + 1);
  }
  return path;
}

/** The area a frame belongs to, for the grouped view. */
export function areaOf(frame) {
  const { functionName, url } = frame;
  if (!url) {
    if (functionName === "(garbage collector)") return "GC";
    if (functionName === "(program)") return "V8/native (program)";
    if (functionName === "(idle)") return "idle";
    return "native";
  }
  if (url.startsWith("node:")) return "Node core (node:*)";
  const path = shortUrl(url);
  if (path.startsWith("packages/")) return `Latchkey ${path.split("/")[1]}`;
  if (path.startsWith("bench/")) return "bench app";
  if (path.startsWith("@auth/")) return path.split("/").slice(0, 2).join("/");
  const pkg = path.split("/")[0];
  if (["express4", "express", "router", "body-parser", "finalhandler", "send", "qs", "cookie"].includes(pkg))
    return `Express (${pkg})`;
  return pkg || "other";
}

const keyOf = (f) => `${f.functionName || "(anonymous)"} ${shortUrl(f.url)}:${f.lineNumber + 1}`;

/** Self and inclusive sample counts per function, from a parsed .cpuprofile. */
export function summarise(profile, { top = 15, window, requests, cpuUs } = {}) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // `window` ([from, to] in µs of the monotonic clock the samples are stamped with) keeps only
  // the samples taken in it; a window outside the profile's span (another clock) is ignored.
  const [from, to] = window ?? [];
  const trim = window && from >= profile.startTime && from <= profile.endTime;
  // Sample counts and time (µs, each sample weighted by the gap before it) per node.
  const hits = new Map();
  const micros = new Map();
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas?.[i] ?? 0;
    t += delta;
    if (trim && (t < from || t > to)) continue;
    const id = profile.samples[i];
    hits.set(id, (hits.get(id) ?? 0) + 1);
    micros.set(id, (micros.get(id) ?? 0) + delta);
  }

  let busy = 0;
  let idle = 0;
  let busyMicros = 0;
  const self = new Map();
  const areas = new Map();
  const inclusive = new Map();
  for (const [id, count] of hits) {
    const node = byId.get(id);
    const frame = node.callFrame;
    if (frame.functionName === "(idle)") {
      idle += count;
      continue;
    }
    busy += count;
    const us = micros.get(id) ?? 0;
    busyMicros += us;
    const key = keyOf(frame);
    const entry = self.get(key) ?? { key, area: areaOf(frame), samples: 0, us: 0 };
    entry.samples += count;
    entry.us += us;
    self.set(key, entry);
    const area = areaOf(frame);
    const a = areas.get(area) ?? { samples: 0, us: 0 };
    a.samples += count;
    a.us += us;
    areas.set(area, a);
    // Inclusive: every distinct function on the stack of this sample, counted once.
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at).callFrame;
      if (!f.url) continue;
      const k = keyOf(f);
      if (seen.has(k)) continue;
      seen.add(k);
      const e = inclusive.get(k) ?? { key: k, area: areaOf(f), samples: 0, us: 0 };
      e.samples += count;
      e.us += us;
      inclusive.set(k, e);
    }
  }
  const pct = (n) => (busy ? (100 * n) / busy : 0);
  // Microseconds of CPU per request served in the window, when the request count is known.
  // With the process's measured CPU per request (`cpuUs`), a function's share is its share of the
  // busy samples times that: a sample's time gap counts wall time, and a server descheduled by other
  // load (a shared machine) would see the wait charged to whatever it was running (often writev).
  const perRequest = (us, samples) =>
    cpuUs !== undefined && busy ? (samples / busy) * cpuUs : requests ? us / requests : undefined;
  const sorted = (m) => [...m.values()].sort((a, b) => b.samples - a.samples);
  return {
    trimmed: Boolean(trim),
    requests,
    busyPerRequest: perRequest(busyMicros, busy),
    measure: cpuUs !== undefined ? "cpu" : "sampled",
    samples: busy + idle,
    busyShare: busy + idle ? busy / (busy + idle) : 0,
    self: sorted(self)
      .slice(0, top)
      .map((e) => ({ ...e, percent: pct(e.samples), perRequest: perRequest(e.us, e.samples) })),
    areas: [...areas]
      .sort((a, b) => b[1].samples - a[1].samples)
      .map(([area, { samples, us }]) => ({
        area,
        samples,
        percent: pct(samples),
        perRequest: perRequest(us, samples),
      })),
    latchkeyInclusive: sorted(inclusive)
      .filter((e) => e.area.startsWith("Latchkey"))
      .slice(0, 10)
      .map((e) => ({ ...e, percent: pct(e.samples), perRequest: perRequest(e.us, e.samples) })),
  };
}

/** Markdown for one summary. */
export function toMarkdown(title, s) {
  const us = (e) => (e.perRequest === undefined ? "" : e.perRequest.toFixed(1));
  const lines = [`#### ${title}`, ""];
  lines.push(
    `${s.samples} samples${s.trimmed ? " in the load window" : " (whole process: the window could not be matched)"}, ` +
      `${(100 * s.busyShare).toFixed(0)}% busy` +
      (s.busyPerRequest === undefined
        ? ""
        : `, ${s.busyPerRequest.toFixed(0)} µs of ${s.measure === "cpu" ? "process CPU" : "sampled time"} per request`) +
      ". Percentages are of the busy (non-idle) samples; µs/req = " +
      (s.measure === "cpu"
        ? "share of the busy samples × the server's CPU per request (process.cpuUsage) in the window."
        : "sampled time ÷ requests served in the window."),
    "",
  );
  lines.push("| self % | µs/req | function (file:line) | area |", "|---:|---:|---|---|");
  for (const e of s.self.slice(0, 15)) lines.push(`| ${e.percent.toFixed(1)} | ${us(e)} | \`${e.key}\` | ${e.area} |`);
  lines.push(
    "",
    "By area (self time): " +
      s.areas
        .filter((a) => a.percent >= 0.5)
        .map((a) => `${a.area} ${a.percent.toFixed(1)}%${a.perRequest === undefined ? "" : ` (${us(a)} µs)`}`)
        .join(", ") +
      ".",
  );
  if (s.latchkeyInclusive.length) {
    lines.push("", "Latchkey functions by inclusive time:", "", "| incl. % | µs/req | function |", "|---:|---:|---|");
    for (const e of s.latchkeyInclusive) lines.push(`| ${e.percent.toFixed(1)} | ${us(e)} | \`${e.key}\` |`);
  }
  return lines.join("\n");
}

/**
 * Where two profiles of the same load differ: self time per request (µs) by function and by area,
 * `b` − `a`, the largest differences first. Needs summaries made with `top: Infinity` and a request
 * count (else the shares of busy samples are compared).
 */
export function compare(a, b, { top = 15 } = {}) {
  const per = (e) => e.perRequest ?? e.percent;
  const diff = (xs, ys, keyOf) => {
    const rows = new Map();
    for (const x of xs) rows.set(keyOf(x), { key: keyOf(x), a: per(x), b: 0 });
    for (const y of ys) {
      const row = rows.get(keyOf(y)) ?? { key: keyOf(y), a: 0, b: 0 };
      row.b = per(y);
      rows.set(keyOf(y), row);
    }
    return [...rows.values()]
      .map((r) => ({ ...r, delta: r.b - r.a }))
      .sort((x, y) => Math.abs(y.delta) - Math.abs(x.delta));
  };
  return {
    unit: a.requests && b.requests ? "µs/req" : "% of busy samples",
    total: { a: a.busyPerRequest, b: b.busyPerRequest },
    functions: diff(a.self, b.self, (e) => e.key).slice(0, top),
    areas: diff(a.areas, b.areas, (e) => e.area),
  };
}

/** Markdown for {@link compare}. */
export function compareMarkdown(title, a, b) {
  const c = compare(a, b);
  const f = (x) => (Number.isFinite(x) ? x.toFixed(1) : "–");
  const signed = (x) => (x > 0 ? `+${f(x)}` : f(x));
  const lines = [`#### ${title}: where the profiles differ`, ""];
  if (c.total.a !== undefined && c.total.b !== undefined)
    lines.push(`Per request: ${f(c.total.a)} → ${f(c.total.b)} µs (${signed(c.total.b - c.total.a)}).`, "");
  lines.push(`| first | second | difference (${c.unit}) | function (file:line) |`, "|---:|---:|---:|---|");
  for (const r of c.functions) lines.push(`| ${f(r.a)} | ${f(r.b)} | ${signed(r.delta)} | \`${r.key}\` |`);
  lines.push(
    "",
    "By area: " +
      c.areas
        .filter((r) => Math.abs(r.delta) >= 0.5)
        .map((r) => `${r.key} ${signed(r.delta)}`)
        .join(", ") +
      ".",
  );
  return lines.join("\n");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const files = process.argv.slice(2);
  const all = files.map((file) => summarise(JSON.parse(readFileSync(file, "utf8")), { top: Number.POSITIVE_INFINITY }));
  for (let i = 0; i < files.length; i++) console.log(toMarkdown(files[i], all[i]), "\n");
  // Two or more profiles: each compared with the first.
  for (let i = 1; i < files.length; i++)
    console.log(compareMarkdown(`${files[i]} − ${files[0]}`, all[0], all[i]), "\n");
}
