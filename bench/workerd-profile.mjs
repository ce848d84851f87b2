/**
 * Where a session read spends its CPU inside workerd (issue 36.8): `node bench/workerd-profile.mjs`
 * after `npm run build`. Each app of bench/runtime-apps runs in `workerd serve` as `npm run
 * bench:runtimes` runs it (the same driver, the same bundle of `wrangler deploy --dry-run`), with
 * workerd's inspector on (`--inspector-addr`). For each app: its answer is checked, it is warmed,
 * its server CPU per request is measured over HTTP with no profiler attached, then V8's sampling
 * profiler (the DevTools protocol's `Profiler` domain, over the inspector's WebSocket) records the
 * isolate while the same load runs again.
 *
 * Time inside workerd cannot be read from the Worker itself (its clocks stand still while it
 * computes), so the profile is the measurement: each sample is charged to a phase of the read by
 * the innermost frame of its stack that a phase names (a Web Crypto call or a `Response` made
 * inside our code counts as that call, not as its caller), and a phase's µs per request is its
 * samples' time over the requests answered while profiling. The profiler's own interruptions and
 * the machine's load inflate every figure alike; read the shares, and the unprofiled CPU per
 * request for scale. "outside JavaScript" is workerd's own work (HTTP, the event loop) and idle
 * time between requests.
 *
 * Options:
 *   --apps a,b        apps of bench/runtime-apps (default latchkey,authjs,bare)
 *   --case C          fresh (a cookie not seen before on every request, 5,000 in turn; default)
 *                     or returning (the same cookie every time)
 *   --duration S      seconds of load, unprofiled and profiled (default 5)
 *   --interval US     sampling interval in µs (default 50)
 *   --nodejs-compat   run the Worker with `nodejs_compat`
 *   --top N           also list the N functions with the most samples of their own (default 12)
 *   --profile DIR     keep each app's profile there as <app>.cpuprofile (for Chrome's DevTools)
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { fmt } from "./lib.mjs";
import { loadDrivers, loadSession, newSecret, runtimeApp, sessionCookies } from "./runtime-drivers.mjs";

// The inspector is spoken to over a WebSocket: a global from Node.js 22, behind a flag before.
if (typeof WebSocket === "undefined") {
  const { spawnSync } = await import("node:child_process");
  const again = spawnSync(process.execPath, ["--experimental-websocket", ...process.argv.slice(1)], {
    stdio: "inherit",
  });
  process.exit(again.status ?? 1);
}

const { values: opts } = parseArgs({
  options: {
    apps: { type: "string", default: "latchkey,authjs,bare" },
    case: { type: "string", default: "fresh" },
    duration: { type: "string", default: "5" },
    interval: { type: "string", default: "50" },
    "nodejs-compat": { type: "boolean", default: false },
    top: { type: "string", default: "12" },
    profile: { type: "string" },
  },
});
const log = (...args) => console.error(...args);
const duration = Number(opts.duration);
if (opts.case !== "fresh" && opts.case !== "returning") throw new Error("--case is fresh or returning");

/**
 * The phases of a read, each named by the functions (of Latchkey's sources, of `@auth/core`, or
 * Web APIs workerd implements natively) whose samples it takes; the first phase a sample's
 * innermost named frame belongs to wins. Anonymous functions are named by the function around
 * them in the bundle (or the name `__name` gives them), so a promise's callback counts where it
 * was written.
 */
const PHASES = [
  ["JWE tag: crypto.subtle.sign (native)", ["native:sign"]],
  ["JWE content: crypto.subtle.decrypt / encrypt (native)", ["native:decrypt", "native:encrypt"]],
  [
    "key derivation (HKDF), key import",
    ["hkdf", "hkdf2", "native:deriveBits", "native:importKey", "deriveKey", "importedOnce"],
  ],
  [
    "JWE tag: data laid out, the call, compare",
    ["awaitableMacOf", "fullMac", "openUnder", "timingSafeEqual", "timingSafeEqual2", "cbcHmacTag"],
  ],
  ["JWE content: AES call", ["decrypted", "cbcCipher", "withKey", "cbcDecrypt", "cbcEncrypt", "cbcKeySetup"]],
  [
    "JWE parse, base64url",
    ["openTokenWithReason", "fromBase64url", "fromBase64", "decodeClean", "decode", "decodeBase64", "native:atob"],
  ],
  [
    "claims: UTF-8, JSON.parse, time checks",
    ["checkClaims", "fromUtf8", "native:decode", "validateClaimsSet", "jwtDecrypt"],
  ],
  ["opened-token cache (JSON kept, Map)", ["openWithCache", "keepOpened"]],
  [
    "session read: strategy, revocation, callbacks, the session object",
    [
      "readSession",
      "strategyRead",
      "readJwtSession",
      "openJwtSession",
      "openSessionToken",
      "checkOpened",
      "keptByCallback",
      "jwtSessionOf",
      "finishJwtRead",
      "identityOf",
      "session",
    ],
  ],
  ["re-issue: seal a new JWE, Set-Cookie", ["encode", "sealToken", "compactJWE", "serialize", "serializeCookie"]],
  [
    "response: finalize, Headers, Response",
    ["toResponse", "finalizeResponse", "native:Response", "native:Headers", "native:append", "native:json"],
  ],
  [
    "request: description, origin, URL, action, query, cookies",
    [
      "webIncoming",
      "originOf",
      "arrivalOf",
      "namesAnotherArrival",
      "linksMailable",
      "buildRequest",
      "parseActionPath",
      "queryRecord",
      "parseCookieHeader",
      "toInternalRequest",
      "native:URL",
    ],
  ],
  ["configuration lookup and context", ["resolveConfig", "createContext", "cookiesFor", "init", "recordPendingAudit"]],
  ["entry: Auth, serve, route, handle", ["Auth", "serve", "handle", "route", "fetch", "AuthInternal"]],
  ["garbage collector", ["(garbage collector)"]],
  ["outside JavaScript (workerd, idle)", ["(program)", "(idle)"]],
];
const phaseOf = new Map(PHASES.flatMap(([phase, names]) => names.map((name) => [name, phase])));
const OTHER = "other JavaScript (promise jobs, helpers)";

/** A free port on 127.0.0.1 for the inspector. */
async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The DevTools protocol over the inspector's WebSocket: `send(method, params)` answers the result. */
async function inspector(port) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", reject, { once: true });
  });
  let lastId = 0;
  const waiting = new Map();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    const settle = waiting.get(message.id);
    if (!settle) return;
    waiting.delete(message.id);
    settle(message);
  });
  return {
    send: (method, params = {}) =>
      new Promise((resolve, reject) => {
        const id = ++lastId;
        waiting.set(id, (message) =>
          // workerd answers a command that returns nothing with no `result` at all.
          message.error ? reject(new Error(`${method}: ${message.error.message}`)) : resolve(message.result ?? {}),
        );
        socket.send(JSON.stringify({ id, method, params }));
      }),
    close: () => socket.close(),
  };
}

/** What an app answers a signed-in read: checked, with the cookies it sets (a re-issued session, a CSRF cookie). */
async function verify(server, app, cookie) {
  const response = await fetch(`${server.url}/auth/session`, { headers: { cookie } });
  const body = await response.json();
  const ok = app === "bare" ? body?.ok === true : body?.user?.email === "ada@example.com";
  if (response.status !== 200 || !ok)
    throw new Error(`${server.label} answered ${response.status} ${JSON.stringify(body)}: not what it is measured on`);
  return response.headers.getSetCookie().map((c) => c.slice(0, c.indexOf("=")));
}

/** Names anonymous frames by the bundle's text: the `__name` label on their line, else the function around them. */
function namer(bundleDir) {
  const files = new Map();
  const linesOf = (url) => {
    const file = url.split("/").at(-1);
    if (!files.has(file)) {
      let lines = null;
      try {
        lines = readFileSync(join(bundleDir, file), "utf8").split("\n");
      } catch {
        // not the bundle (a built-in)
      }
      files.set(file, lines);
    }
    return files.get(file);
  };
  const cache = new Map();
  return ({ functionName, url, lineNumber }) => {
    // Built-ins (Web APIs, V8's own entries) have no script: `native:` tells them from ours.
    if (!url) return functionName.startsWith("(") ? functionName : `native:${functionName}`;
    if (functionName) return functionName;
    const key = `${url}:${lineNumber}`;
    if (cache.has(key)) return cache.get(key);
    const lines = url ? linesOf(url) : null;
    let name = "(anonymous)";
    if (lines) {
      const label = [...(lines[lineNumber] ?? "").matchAll(/__name\(.*?, "(\w+)"\)/g)].at(-1)?.[1];
      if (label) name = label;
      else
        for (let at = lineNumber; at >= 0; at--) {
          const found = /^\s*(?:async\s+)?function\*?\s+([\w$]+)\s*\(/.exec(lines[at] ?? "");
          if (found) {
            name = found[1];
            break;
          }
        }
    }
    cache.set(key, name);
    return name;
  };
}

/** Each phase's and each function's (self) time in µs per answered request. */
function analyse(profile, answered, nameOf) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const phaseOfNode = new Map();
  const phaseFor = (id) => {
    if (phaseOfNode.has(id)) return phaseOfNode.get(id);
    const node = nodes.get(id);
    const own = phaseOf.get(nameOf(node.callFrame));
    const up = parent.get(id);
    const phase = own ?? (up === undefined ? OTHER : phaseFor(up));
    phaseOfNode.set(id, phase);
    return phase;
  };
  const phases = new Map();
  const selves = new Map();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i + 1] ?? 0;
    total += us;
    const phase = phaseFor(id);
    phases.set(phase, (phases.get(phase) ?? 0) + us);
    const self = nameOf(nodes.get(id).callFrame);
    selves.set(self, (selves.get(self) ?? 0) + us);
  });
  const perRequest = (map) =>
    [...map].map(([name, us]) => ({ name, us: us / answered, share: us / total })).sort((a, b) => b.us - a.us);
  return { total: total / answered, phases: perRequest(phases), selves: perRequest(selves) };
}

const { buildFolder, workerd } = await loadDrivers();
const folder = buildFolder();
const secret = newSecret();
const cookies = await sessionCookies(secret, opts.case === "fresh" ? 5000 : 1);
const startedAt = new Date();
const loadBefore = loadavg()[0];
const results = [];
try {
  for (const app of opts.apps.split(",")) {
    const port = await freePort();
    const runtime = workerd(opts["nodejs-compat"], [`--inspector-addr=127.0.0.1:${port}`]);
    log(`workerd-profile: ${app} on ${runtime.name}`);
    const before = new Set(readdirSync(folder));
    const server = await runtime.start(runtimeApp(app), { AUTH_SECRET: secret }, folder);
    server.label = `${app} on ${runtime.name}`;
    try {
      const workerDir = readdirSync(folder).find((entry) => !before.has(entry));
      const setCookies = await verify(server, app, cookies[0]);
      await loadSession(server, cookies, 2);
      const plain = await loadSession(server, cookies, duration);
      const devtools = await inspector(port);
      await devtools.send("Profiler.enable");
      await devtools.send("Profiler.setSamplingInterval", { interval: Number(opts.interval) });
      await devtools.send("Profiler.start");
      const profiled = await loadSession(server, cookies, duration);
      const { profile } = await devtools.send("Profiler.stop");
      devtools.close();
      if (opts.profile) {
        mkdirSync(opts.profile, { recursive: true });
        writeFileSync(join(opts.profile, `${app}.cpuprofile`), JSON.stringify(profile));
      }
      const analysis = analyse(profile, profiled.answered, namer(join(folder, workerDir, "out")));
      results.push({ app, setCookies, plain, profiled, ...analysis });
    } finally {
      await server.stop();
    }
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}

const top = Number(opts.top);
const lines = [
  `Profile of ${startedAt.toISOString().slice(0, 16).replace("T", " ")} UTC: workerd ${opts["nodejs-compat"] ? "with" : "without"} nodejs_compat, GET /auth/session with ${opts.case === "fresh" ? "a cookie not seen before on every request" : "the same cookie on every request"}, ${duration} s per app, 10 connections, sampling every ${opts.interval} µs; load average ${fmt(loadBefore, 1)} before and ${fmt(loadavg()[0], 1)} after (2 cores).`,
  "",
  "| app | server CPU µs/req, no profiler | sampled µs/req, profiled | cookies set by a read |",
  "| --- | --- | --- | --- |",
  ...results.map(
    (r) => `| ${r.app} | ${fmt(r.plain.cpuUs)} | ${fmt(r.total)} | ${r.setCookies.join(", ") || "none"} |`,
  ),
  "",
  ...results.flatMap((r) => [
    `**${r.app}: µs per request by phase (share of the samples)**`,
    "",
    "| phase | µs/req | share |",
    "| --- | --- | --- |",
    ...r.phases.map((p) => `| ${p.name} | ${fmt(p.us, 1)} | ${fmt(p.share * 100, 1)}% |`),
    "",
    `Functions with the most samples of their own: ${r.selves
      .slice(0, top)
      .map((f) => `${f.name} ${fmt(f.us, 1)}`)
      .join(", ")}.`,
    "",
  ]),
];
console.log(lines.join("\n"));
