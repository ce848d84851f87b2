/**
 * What bench/run.mjs and bench/test/harness.test.ts share: starting the server processes, signing
 * in through each library to get its cookies, the cases (request + the check of a correct answer).
 * Checks guard the benchmark: a case measures real work only if its answer is the expected one
 * (e.g. the signed-in session GET returns the user, not null).
 */
import { fork } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";

const serverFile = fileURLToPath(new URL("./server.mjs", import.meta.url));

/** Every server the benchmark can start (see server.mjs). */
export const APPS = [
  "bare",
  "latchkey",
  "authjs",
  "latchkey-sqlite",
  "latchkey-postgres",
  "latchkey-postgres-cache",
  "authjs-postgres",
  "latchkey-revocation",
  "latchkey-organizations",
  "latchkey-postgres-credentials",
  "hono-bare",
  "hono",
  "fastify-bare",
  "fastify",
  "sveltekit-bare",
  "sveltekit",
];

/** Whether an app is a reference: a framework with its bare route only ("bare" is Express). */
export const isBare = (app) => /(^|-)bare$/.test(app);

export const LABELS = {
  bare: "bare Express",
  latchkey: "Latchkey",
  authjs: "Auth.js",
  "latchkey-sqlite": "Latchkey (SQLite)",
  "latchkey-postgres": "Latchkey (PostgreSQL)",
  "latchkey-postgres-cache": "Latchkey (PostgreSQL, session.cache)",
  "authjs-postgres": "Auth.js (@auth/pg-adapter)",
  "latchkey-revocation": "Latchkey, revocation on (Redis)",
  "latchkey-organizations": "Latchkey, an active organization (memory store)",
  "latchkey-postgres-credentials": "Latchkey (PostgreSQL, credentials)",
  "hono-bare": "bare Hono",
  hono: "Latchkey on Hono",
  "fastify-bare": "bare Fastify",
  fastify: "Latchkey on Fastify",
  "sveltekit-bare": "bare SvelteKit",
  sveltekit: "Latchkey on SvelteKit",
};

const json = (body) => {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
};
const isAda = (session) => session?.user?.email === "ada@example.com" && typeof session.expires === "string";
const sessionCookieValue = (headers) =>
  [headers["set-cookie"] ?? []]
    .flat()
    .find((c) => c.startsWith("authjs.session-token="))
    ?.split(";")[0]
    .slice("authjs.session-token=".length);
const setCookieNames = (headers) => [headers["set-cookie"] ?? []].flat().map((c) => c.slice(0, c.indexOf("=")));

/**
 * The cases. `apps` are the servers a case runs on; `request(prepared)` gives autocannon's request
 * (method, path, headers, body) from what `prepare` returned for that server; `check` returns null
 * when an answer is right, else what is wrong.
 */
export const CASES = [
  {
    id: "bare",
    title: "bare route GET /bare",
    apps: ["bare"],
    request: () => ({ method: "GET", path: "/bare" }),
    status: 200,
    check: (r) => (json(r.body)?.ok === true ? null : "body is not {ok:true}"),
  },
  {
    id: "session",
    title: "signed-in GET /auth/session (JWT)",
    apps: ["latchkey", "authjs"],
    request: (p) => ({ method: "GET", path: "/auth/session", headers: { cookie: p.sessionCookie } }),
    status: 200,
    check: (r) => (isAda(json(r.body)) ? null : "no signed-in user in the session body"),
  },
  {
    id: "session-anon",
    title: "no-cookie GET /auth/session",
    apps: ["latchkey", "authjs"],
    request: () => ({ method: "GET", path: "/auth/session" }),
    status: 200,
    check: (r) => {
      const body = json(r.body);
      return body === null || (body && Object.keys(body).length === 0) ? null : "session body is not empty";
    },
  },
  {
    id: "csrf",
    title: "GET /auth/csrf",
    apps: ["latchkey", "authjs"],
    request: () => ({ method: "GET", path: "/auth/csrf" }),
    status: 200,
    check: (r) => {
      if (!/^[0-9a-f]{64}$/.test(json(r.body)?.csrfToken ?? "")) return "no csrfToken";
      return setCookieNames(r.headers).includes("authjs.csrf-token") ? null : "no CSRF cookie set";
    },
  },
  {
    id: "providers",
    title: "GET /auth/providers",
    apps: ["latchkey", "authjs"],
    request: () => ({ method: "GET", path: "/auth/providers" }),
    status: 200,
    check: (r) => {
      const credentials = json(r.body)?.credentials;
      return credentials?.id === "credentials" && credentials.callbackUrl?.endsWith("/auth/callback/credentials")
        ? null
        : "no credentials provider listed";
    },
  },
  {
    id: "signin-page",
    title: "sign-in page GET /auth/signin",
    apps: ["latchkey", "authjs"],
    request: () => ({ method: "GET", path: "/auth/signin" }),
    status: 200,
    check: (r) =>
      /<html/i.test(r.body) && r.body.includes("/auth/callback/credentials") && /name="csrfToken"/.test(r.body)
        ? null
        : "not the sign-in page with the credentials form",
  },
  {
    id: "credentials",
    title: "credentials sign-in POST /auth/callback/credentials",
    apps: ["latchkey", "authjs"],
    request: (p) => ({
      method: "POST",
      path: "/auth/callback/credentials",
      headers: { cookie: p.csrfCookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken: p.csrfToken, username: "ada", password: "lovelace" }).toString(),
    }),
    status: 302,
    check: (r) => {
      if (/error=/.test(r.headers.location ?? "")) return `redirected to an error: ${r.headers.location}`;
      return setCookieNames(r.headers).includes("authjs.session-token") ? null : "no session cookie set";
    },
  },
  {
    // The same sign-in onto a database session: the user looked up by its account, a session row
    // stored, the user's oldest session ended past `session.maxPerUser` (every sign-in of one user).
    id: "credentials-postgres",
    title: "credentials sign-in POST /auth/callback/credentials, database session (PostgreSQL)",
    apps: ["latchkey-postgres-credentials"],
    request: (p) => ({
      method: "POST",
      path: "/auth/callback/credentials",
      headers: { cookie: p.csrfCookie, "content-type": "application/x-www-form-urlencoded" },
      // The 5,000 users the app stored (bench/server.mjs), one after the other.
      bodies: Array.from({ length: 5000 }, (_, i) =>
        new URLSearchParams({ csrfToken: p.csrfToken, username: `user-${i + 1}`, password: "lovelace" }).toString(),
      ),
    }),
    status: 302,
    check: (r) => {
      if (/error=/.test(r.headers.location ?? "")) return `redirected to an error: ${r.headers.location}`;
      return /^[0-9a-f]{64}$/.test(sessionCookieValue(r.headers) ?? "") ? null : "no database session token set";
    },
  },
  {
    id: "getsession",
    title: "route calling getSession GET /me",
    apps: ["latchkey", "authjs"],
    request: (p) => ({ method: "GET", path: "/me", headers: { cookie: p.sessionCookie } }),
    status: 200,
    check: (r) => (isAda(json(r.body)) ? null : "getSession gave no user"),
  },
  {
    // Every request carries another user's token (a new `sub` and `sid`), so the opened-token cache
    // never hits and, with revocation on, every lookup is a different key of a non-empty list.
    id: "session-newuser",
    title: "signed-in GET /auth/session (JWT), a new user's token on every request",
    apps: ["latchkey", "latchkey-revocation", "authjs"],
    request: (p) => ({ method: "GET", path: "/auth/session", cookies: p.newUserCookies }),
    status: 200,
    check: (r) => (isAda(json(r.body)) ? null : "no signed-in user in the session body"),
  },
  {
    // The session of a member with an active organization: its cookie's seal checked and the
    // membership (the role) read from the organization store on every request.
    id: "session-organization",
    title: "signed-in GET /auth/session (JWT) with an active organization, its role read from the store",
    apps: ["latchkey-organizations"],
    request: (p) => ({ method: "GET", path: "/auth/session", headers: { cookie: p.sessionCookie } }),
    status: 200,
    check: (r) => {
      const session = json(r.body);
      if (!isAda(session)) return "no signed-in user in the session body";
      return session.activeOrganization?.role === "owner" ? null : "no active organization with Ada's role";
    },
  },
  {
    id: "protected",
    title: "route behind requireAuth GET /protected",
    apps: ["latchkey"],
    request: (p) => ({ method: "GET", path: "/protected", headers: { cookie: p.sessionCookie } }),
    status: 200,
    check: (r) => (json(r.body)?.email === "ada@example.com" ? null : "requireAuth let no user through"),
  },
  {
    id: "api-key",
    title: "route behind verifyApiKey GET /api-key (a key and a scope checked)",
    apps: ["latchkey"],
    request: (p) => ({ method: "GET", path: "/api-key", headers: { authorization: `Bearer ${p.apiKey}` } }),
    status: 200,
    check: (r) => (json(r.body)?.owner?.id === "u1" ? null : "verifyApiKey let no key through"),
  },
  // Each framework against its own bare route (`bare` names the reference app of a case).
  ...["hono", "fastify"].flatMap((framework) => [
    {
      id: `${framework}-getsession`,
      title: `${LABELS[framework]}: route calling getSession GET /me`,
      apps: [framework],
      bare: `${framework}-bare`,
      request: (p) => ({ method: "GET", path: "/me", headers: { cookie: p.sessionCookie } }),
      status: 200,
      check: (r) => (isAda(json(r.body)) ? null : "getSession gave no user"),
    },
    {
      id: `${framework}-protected`,
      title: `${LABELS[framework]}: route behind requireAuth GET /protected`,
      apps: [framework],
      bare: `${framework}-bare`,
      request: (p) => ({ method: "GET", path: "/protected", headers: { cookie: p.sessionCookie } }),
      status: 200,
      check: (r) => (json(r.body)?.email === "ada@example.com" ? null : "requireAuth let no user through"),
    },
  ]),
  {
    id: "sveltekit-getsession",
    title: `${LABELS.sveltekit}: route calling event.locals.auth() GET /api/me`,
    apps: ["sveltekit"],
    bare: "sveltekit-bare",
    request: (p) => ({ method: "GET", path: "/api/me", headers: { cookie: p.sessionCookie } }),
    status: 200,
    check: (r) => (isAda(json(r.body)) ? null : "locals.auth() gave no user"),
  },
  {
    id: "sveltekit-protected",
    title: `${LABELS.sveltekit}: guarded route GET /api/protected`,
    apps: ["sveltekit"],
    bare: "sveltekit-bare",
    request: (p) => ({ method: "GET", path: "/api/protected", headers: { cookie: p.sessionCookie } }),
    status: 200,
    check: (r) => (json(r.body)?.email === "ada@example.com" ? null : "the guard let no user through"),
  },
  {
    id: "db-session-sqlite",
    title: "database-session GET /auth/session, SQLite",
    apps: ["latchkey-sqlite"],
    request: (p) => ({ method: "GET", path: "/auth/session", headers: { cookie: p.sessionCookie } }),
    status: 200,
    check: (r) => (isAda(json(r.body)) ? null : "no user from the database session"),
  },
  {
    id: "db-session-postgres",
    title: "database-session GET /auth/session, PostgreSQL",
    apps: ["latchkey-postgres"],
    request: (p) => ({ method: "GET", path: "/auth/session", headers: { cookie: p.sessionCookie } }),
    status: 200,
    check: (r) => (isAda(json(r.body)) ? null : "no user from the database session"),
  },
  {
    id: "db-session-postgres-cache",
    title: "database-session GET /auth/session, PostgreSQL, Latchkey with session.cache and Auth.js",
    apps: ["latchkey-postgres-cache", "authjs-postgres"],
    request: (p) => ({ method: "GET", path: "/auth/session", headers: { cookie: p.sessionCookie } }),
    status: 200,
    check: (r) => (isAda(json(r.body)) ? null : "no user from the database session"),
  },
];

/** One request over loopback with node:fetch semantics (no redirects followed). */
export async function send(port, { method = "GET", path, headers = {}, body }) {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers, body, redirect: "manual" });
  const plain = {};
  for (const [k, v] of response.headers) if (k !== "set-cookie") plain[k] = v;
  plain["set-cookie"] = response.headers.getSetCookie();
  return { status: response.status, headers: plain, body: await response.text() };
}

/** Runs a case's request once against a prepared server: null when right, else the problem. */
export async function verify(kase, server) {
  const request = kase.request(server.prepared);
  const r = await send(server.port, {
    ...request,
    ...(request.cookies ? { headers: { cookie: request.cookies[0] } } : {}),
    ...(request.bodies ? { body: request.bodies[0] } : {}),
  });
  if (r.status !== kase.status) return `status ${r.status}, expected ${kase.status}: ${r.body.slice(0, 200)}`;
  return kase.check(r);
}

/** Applies Set-Cookie headers to a jar (name → value), as a browser would. */
function applyCookies(jar, setCookies) {
  for (const header of setCookies) {
    const pair = header.split(";")[0];
    const eq = pair.indexOf("=");
    const value = pair.slice(eq + 1);
    if (value === "" || /;\s*max-age=0\s*(;|$)/i.test(header)) jar.delete(pair.slice(0, eq));
    else jar.set(pair.slice(0, eq), value);
  }
}
const cookieHeader = (jar) => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");

/**
 * What the cases need from a server: a CSRF token + cookie pair (reused by every credentials
 * POST), and the cookies a browser holds after signing in through the library's own credentials
 * callback (CSRF, callback URL and session cookies: what it sends with every later request). For
 * the database apps: the token of the session row the server made through the adapter.
 */
export async function prepare(server) {
  if (isBare(server.app)) return {};
  const apiKey = server.apiKey ? { apiKey: server.apiKey } : {};
  if (server.organizationId) return { ...(await organizationChosen(server, await signInPrepared(server))), ...apiKey };
  if (!server.sessionToken)
    return { ...(await signInPrepared(server)), newUserCookies: await newUserCookies(), ...apiKey };
  return { ...(await signInPrepared(server)), ...apiKey };
}

/**
 * The signed-in browser of `signInPrepared` after choosing the server's organization through
 * `POST /auth/organization` (CSRF-checked), as a member's browser does: its cookie joins the others.
 */
async function organizationChosen(server, signedIn) {
  const jar = new Map(
    signedIn.sessionCookie
      .split("; ")
      .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
  );
  const chosen = await send(server.port, {
    method: "POST",
    path: "/auth/organization",
    headers: {
      cookie: signedIn.sessionCookie,
      "content-type": "application/x-www-form-urlencoded",
      origin: `http://127.0.0.1:${server.port}`,
    },
    body: new URLSearchParams({ csrfToken: signedIn.csrfToken, organizationId: server.organizationId }).toString(),
  });
  const before = jar.size;
  applyCookies(jar, chosen.headers["set-cookie"]);
  if (chosen.status !== 200 || jar.size !== before + 1)
    throw new Error(
      `${server.app}: POST /auth/organization chose nothing (${chosen.status} ${chosen.body.slice(0, 200)})`,
    );
  return { ...signedIn, sessionCookie: cookieHeader(jar) };
}

const NEW_USER_TOKENS = 20_000;
let newUserTokens;
/**
 * Session cookies of 20,000 different users (10 times the opened-token cache), sealed once per run
 * with `@latchkey/core/jwt` (the JWE both libraries read) under the bench secret, each with the
 * claims a sign-in gives: name, e-mail, picture, `sub`, `sid`, `auth_time`.
 */
async function newUserCookies() {
  if (newUserTokens) return newUserTokens;
  const { encode } = await import("@latchkey/core/jwt");
  const { randomUUID } = await import("node:crypto");
  const { SECRET } = await import("./secret.mjs");
  newUserTokens = [];
  for (let i = 0; i < NEW_USER_TOKENS; i++) {
    const token = await encode({
      token: {
        name: "Ada Lovelace",
        email: "ada@example.com",
        picture: null,
        sub: `user-${i}`,
        sid: randomUUID(),
        auth_time: Date.now() / 1000,
      },
      secret: SECRET,
      salt: "authjs.session-token",
    });
    newUserTokens.push(`authjs.session-token=${token}`);
  }
  return newUserTokens;
}

async function signInPrepared(server) {
  if (server.sessionToken) return { sessionCookie: `authjs.session-token=${server.sessionToken}` };
  const jar = new Map();
  const csrf = await send(server.port, { path: "/auth/csrf" });
  applyCookies(jar, csrf.headers["set-cookie"]);
  const csrfToken = json(csrf.body)?.csrfToken;
  const csrfCookie = jar.has("authjs.csrf-token") ? `authjs.csrf-token=${jar.get("authjs.csrf-token")}` : undefined;
  if (!csrfToken || !csrfCookie) throw new Error(`${server.app}: GET /auth/csrf gave no token/cookie pair`);
  const signIn = await send(server.port, {
    method: "POST",
    path: "/auth/callback/credentials",
    // A browser's form post names its origin (SvelteKit refuses a form post without one).
    headers: {
      cookie: csrfCookie,
      "content-type": "application/x-www-form-urlencoded",
      origin: `http://127.0.0.1:${server.port}`,
    },
    body: new URLSearchParams({ csrfToken, username: "ada", password: "lovelace" }).toString(),
  });
  applyCookies(jar, signIn.headers["set-cookie"]);
  if (signIn.status !== 302 || !jar.has("authjs.session-token"))
    throw new Error(`${server.app}: credentials sign-in failed (${signIn.status} ${signIn.headers.location ?? ""})`);
  return { csrfToken, csrfCookie, sessionCookie: cookieHeader(jar) };
}

/** Resolves true when something accepts TCP connections at 127.0.0.1:port. */
export function answers(port, timeoutMs = 1500) {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("connect", () => {
      socket.end();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * Starts one server process. `execArgv` adds Node flags (--cpu-prof ...); `file` runs another copy
 * of server.mjs (to compare a patched build, say). The handle has the port,
 * `ask(op)` for IPC requests, and `stop()` which waits for the process to exit.
 */
export function startServer(app, { execArgv = [], timeoutMs = 60_000, file = serverFile } = {}) {
  const child = fork(file, [], {
    env: { ...process.env, BENCH_APP: app },
    execArgv: ["--expose-gc", ...execArgv],
    stdio: ["ignore", "inherit", "pipe", "ipc"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  const waiting = new Map();
  let nextId = 1;
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  child.on("message", (m) => {
    const w = waiting.get(m?.id);
    if (w) {
      waiting.delete(m.id);
      clearTimeout(w.timer);
      w.resolve(m);
    }
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`${app}: server not ready within ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    // `exited` only ever resolves (an exit is not an error of its own), so nothing is lost here.
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`${app}: server exited (${code ?? signal}) before it was ready\n${stderr}`));
    });
    child.once("message", (m) => {
      if (m?.type !== "ready") return;
      clearTimeout(timer);
      const handle = {
        app,
        port: m.port,
        sessionToken: m.sessionToken,
        apiKey: m.apiKey,
        organizationId: m.organizationId,
        pid: child.pid,
        prepared: undefined,
        stderr: () => stderr,
        ask(op, askTimeoutMs = 30_000) {
          const id = nextId++;
          return new Promise((res, rej) => {
            const t = setTimeout(() => {
              waiting.delete(id);
              rej(new Error(`${app}: no answer to "${op}" within ${askTimeoutMs} ms`));
            }, askTimeoutMs);
            waiting.set(id, { resolve: res, timer: t });
            child.send({ id, op });
          });
        },
        async stop(stopTimeoutMs = 20_000) {
          if (child.exitCode !== null || child.signalCode !== null) return;
          child.send({ op: "exit" });
          const t = setTimeout(() => child.kill("SIGKILL"), stopTimeoutMs);
          await exited;
          clearTimeout(t);
        },
      };
      resolve(handle);
    });
  });
}

const percentile = (sorted, p) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : NaN;

/** Busy and total CPU seconds of the whole machine so far (Linux /proc/stat; null elsewhere). */
function machineCpu() {
  try {
    const f = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, idle, iowait, irq, softirq, steal] = f;
    const busy = user + nice + system + irq + softirq + steal;
    return { busy: busy / 100, total: (busy + idle + iowait) / 100 };
  } catch {
    return null;
  }
}

const cpuSeconds = (u) => (u.user + u.system) / 1e6;

/**
 * Drives `server` with one request shape, for `seconds` or `amount` requests (at most `rate` per
 * second in total when given, else as fast as it answers). Returns req/s,
 * latency percentiles (exact, from every response), server CPU per request, status counts, and
 * the other processes' load during the run.
 */
export async function load(server, request, { seconds, amount, connections = 10, rate }) {
  const before = await server.ask("stats");
  const machineBefore = machineCpu();
  const selfBefore = process.cpuUsage();
  const latencies = [];
  const statuses = {};
  const started = process.hrtime.bigint();
  // A request with `cookies` (or `bodies`) sends the next one of the list with each request (round robin).
  let next = 0;
  const rotating =
    request.cookies || request.bodies
      ? [
          {
            method: request.method,
            path: request.path,
            setupRequest: (req) => {
              const n = next++;
              const rotated = { ...req };
              if (request.cookies)
                rotated.headers = { ...req.headers, cookie: request.cookies[n % request.cookies.length] };
              if (request.bodies) rotated.body = request.bodies[n % request.bodies.length];
              return rotated;
            },
          },
        ]
      : undefined;
  const result = await new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${server.port}${request.path}`,
        method: request.method,
        headers: request.headers,
        body: request.body,
        ...(rotating ? { requests: rotating } : {}),
        connections,
        ...(amount ? { amount } : { duration: seconds }),
        ...(rate ? { overallRate: rate } : {}),
        timeout: 10,
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
    instance.on("response", (_client, statusCode, _bytes, ms) => {
      latencies.push(ms);
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
    });
  });
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const selfCpu = cpuSeconds(process.cpuUsage(selfBefore));
  const machineAfter = machineCpu();
  const after = await server.ask("stats");
  const serverCpu = cpuSeconds(after.cpu) - cpuSeconds(before.cpu);
  const served = after.requests - before.requests;
  latencies.sort((a, b) => a - b);
  const otherLoad = machineBefore
    ? Math.max(0, machineAfter.busy - machineBefore.busy - serverCpu - selfCpu) / wall
    : Number.NaN;
  return {
    requests: latencies.length,
    rps: latencies.length / wall,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    cpuUs: served ? (serverCpu * 1e6) / served : Number.NaN,
    clientCpuUs: latencies.length ? (selfCpu * 1e6) / latencies.length : Number.NaN,
    statuses,
    errors: result.errors + result.timeouts,
    serverErrors: after.errors - before.errors,
    // Statements the server's PostgreSQL pool ran per 1,000 requests served (the database apps).
    queriesPerThousand:
      typeof after.queries === "number" && served ? ((after.queries - before.queries) * 1000) / served : undefined,
    otherLoad,
    served,
    window: [before.now, after.now],
  };
}

/** The median of the finite numbers of a list (NaN for none). */
export function median(xs) {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return Number.NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The median of a list with its range and size. */
export function spread(xs) {
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), n: xs.length };
}

/** A number for a table: fixed digits, "–" for none. */
export function fmt(x, digits = 0) {
  return Number.isFinite(x) ? x.toFixed(digits) : "–";
}

/**
 * The order in which a round runs its members: rotated by one every round (A B C, B C A, C A B,
 * ...), so that each ratio compares runs taken seconds apart and no member always goes first.
 */
export function rotation(members, round) {
  const shift = round % members.length;
  return [...members.slice(shift), ...members.slice(0, shift)];
}

/** The options of every bench run's rounds, for `parseArgs` (`--rounds`, `--duration`, `--warmup`, `--connections`). */
export const ROUND_OPTIONS = {
  rounds: { type: "string", default: "5" },
  duration: { type: "string", default: "3" },
  warmup: { type: "string", default: "2" },
  connections: { type: "string", default: "10" },
};

/**
 * Rewrites the part of bench/RESULTS.md between `<!-- name:begin -->` and `<!-- name:end -->`
 * with `markdown` (the rest of the file is written by hand).
 */
export function writeResultsSection(name, markdown) {
  const file = fileURLToPath(new URL("./RESULTS.md", import.meta.url));
  const text = readFileSync(file, "utf8");
  const begin = `<!-- ${name}:begin -->`;
  const end = `<!-- ${name}:end -->`;
  if (!text.includes(begin) || !text.includes(end))
    throw new Error(`bench/RESULTS.md has no ${begin} ... ${end} markers`);
  writeFileSync(
    file,
    `${text.slice(0, text.indexOf(begin) + begin.length)}\n${markdown}\n${text.slice(text.indexOf(end))}`,
  );
}
