#!/usr/bin/env node
// The newcomer's walk through a session GET, measured (docs/architecture.md, "Two walks for a
// newcomer"): the files of the built @latchkey/core whose functions run during one warm
// `GET /auth/session` with a JWT session, by V8's precise coverage in this process. Two identical
// requests load and warm everything; the counters are then reset, and the files whose functions
// counted a call during a third request are listed. A face (`lib/<wing>/index.js`) only hands names
// on, so it never counts.
//
// Usage: node scripts/walk.mjs [--list]   (after `npm run build`)
import { Session } from "node:inspector/promises";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";

const dist = fileURLToPath(new URL("../packages/core/dist/", import.meta.url));
const { Auth } = await import(new URL("index.js", `file://${dist}`).href);
const { encode } = await import(new URL("jwt.js", `file://${dist}`).href);
const { default: Credentials } = await import(new URL("providers/credentials.js", `file://${dist}`).href);

const secret = "a-walk-secret-of-at-least-32-characters!";
const config = {
  secret,
  trustHost: true,
  basePath: "/auth",
  providers: [Credentials({ credentials: { email: {} }, authorize: () => null })],
};
const cookieName = "authjs.session-token";
const now = Math.floor(Date.now() / 1000);
const token = await encode({
  secret,
  salt: cookieName,
  token: { sub: "walker", name: "Walker", email: "walker@example.com", iat: now, exp: now + 3600 },
});
const request = () =>
  new Request("http://localhost:3000/auth/session", { headers: { cookie: `${cookieName}=${token}` } });

const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });

for (let i = 0; i < 2; i++) {
  const response = await Auth(request(), config);
  const body = await response.json();
  if (body?.user?.email !== "walker@example.com")
    throw new Error(`the session GET found no session: ${JSON.stringify(body)}`);
}
await session.post("Profiler.takePreciseCoverage"); // resets the counters
const response = await Auth(request(), config);
await response.text();
const { result } = await session.post("Profiler.takePreciseCoverage");
await session.post("Profiler.stopPreciseCoverage");
session.disconnect();

const entered = result
  .filter((script) => script.url.startsWith(`file://${dist}`))
  .filter((script) => script.functions.some((f) => f.ranges.some((r) => r.count > 0)))
  .map((script) => relative(dist, fileURLToPath(script.url)))
  .sort();
if (process.argv.includes("--list")) for (const file of entered) console.log(`  ${file}`);
console.log(`session GET (JWT, warm): ${entered.length} files of @latchkey/core entered`);
