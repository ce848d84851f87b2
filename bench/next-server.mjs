/**
 * One Next.js benchmark server (bench/next-app, built with `next build`), run like bench/server.mjs
 * as a child process with an IPC channel and the same messages (ready, stats, gc, exit). The app
 * is served through Next.js's own request handler (what `next start` runs) on 127.0.0.1.
 * `BENCH_APP` picks the library the app's auth() and proxy use:
 *
 *   next-bare       none (the bare Route Handler /api/bare and the page /open are the references)
 *   next-latchkey   @latchkey/next
 *   next-nextauth   next-auth v5
 */
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { SECRET } from "./secret.mjs";

const app = process.env.BENCH_APP ?? "next-bare";
const library = { "next-bare": "none", "next-latchkey": "latchkey", "next-nextauth": "nextauth" }[app];
if (!library) throw new Error(`unknown BENCH_APP "${app}"`);
const dir = fileURLToPath(new URL("./next-app/", import.meta.url));
Object.assign(process.env, { BENCH_NEXT_AUTH: library, AUTH_SECRET: SECRET, NEXT_TELEMETRY_DISABLED: "1" });
process.env.NODE_ENV = "production";

const { default: next } = await import(createRequire(`${dir}package.json`).resolve("next"));
const server = createServer();
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const port = server.address().port;
const nextApp = next({ dev: false, dir, hostname: "127.0.0.1", port });
await nextApp.prepare();
const handle = nextApp.getRequestHandler();
let requests = 0;
server.on("request", (req, res) => {
  requests++;
  void handle(req, res);
});
server.keepAliveTimeout = 30_000;
send({ type: "ready", port });

function send(message) {
  if (process.send) process.send(message);
  else console.log(JSON.stringify(message));
}

const errors = () => globalThis.__benchLoggedErrors ?? 0;
let exiting = false;
async function exit(code) {
  if (exiting) return;
  exiting = true;
  server.closeAllConnections?.();
  await new Promise((resolve) => server.close(() => resolve()));
  await nextApp.close?.();
  process.exit(code);
}

process.on("message", (message) => {
  const { id, op } = message ?? {};
  if (op === "stats") {
    const now = Number(process.hrtime.bigint() / 1000n);
    send({ id, now, cpu: process.cpuUsage(), requests, errors: errors(), heapUsed: process.memoryUsage().heapUsed });
  } else if (op === "gc") {
    globalThis.gc?.();
    globalThis.gc?.();
    send({ id, heapUsed: process.memoryUsage().heapUsed, gc: typeof globalThis.gc === "function" });
  } else if (op === "exit") {
    void exit(0);
  }
});
process.on("disconnect", () => void exit(0));
process.on("SIGTERM", () => void exit(0));
