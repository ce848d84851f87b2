/**
 * The session read of `@latchkey/next`'s `auth()` outside Next.js, with a promise hook on (as
 * Next.js's async context tracking has one): the promises each read creates and its CPU, for the
 * lean read (`sessionReadOf`) against `GET <basePath>/session` through the whole pipeline
 * (`serve`), which `auth()` used before. `node bench/next-session-read.mjs [--reads N]` after
 * `npm run build`. Counts, not a verdict: the CPU figures move with the machine's other load.
 */
import { createHook } from "node:async_hooks";
import { parseArgs } from "node:util";
import { Auth } from "@latchkey/core";
import { internalRequest, serve, sessionReadOf } from "@latchkey/core/internal";
import Credentials from "@latchkey/core/providers/credentials";
import { SECRET } from "./secret.mjs";

const { values: opts } = parseArgs({ options: { reads: { type: "string", default: "20000" } } });
const READS = Number(opts.reads);
const ORIGIN = "http://localhost:3000";
const config = {
  secret: SECRET,
  trustHost: true,
  basePath: "/api/auth",
  providers: [
    Credentials({
      credentials: { username: {}, password: {} },
      authorize: async () => ({ id: "u1", name: "Ada Lovelace", email: "ada@example.com" }),
    }),
  ],
};

/** A session cookie from the credentials sign-in, as a browser holds it. */
async function sessionCookie() {
  const csrf = await Auth(new Request(`${ORIGIN}/api/auth/csrf`), config);
  const csrfCookie = csrf.headers.getSetCookie()[0].split(";")[0];
  const { csrfToken } = await csrf.json();
  const res = await Auth(
    new Request(`${ORIGIN}/api/auth/callback/credentials`, {
      method: "POST",
      headers: { cookie: csrfCookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken, username: "ada", password: "lovelace" }),
    }),
    config,
  );
  const session = res.headers.getSetCookie().find((c) => c.startsWith("authjs.session-token="));
  if (!session) throw new Error(`the sign-in set no session cookie (${res.status})`);
  return session.split(";")[0];
}

const cookie = await sessionCookie();
const where = { protocol: "http", host: "localhost:3000" };
const reads = {
  "serve GET /session": async () => {
    const res = await serve(internalRequest(config, where, "GET", "/session", { cookie }), config, {});
    return res.body;
  },
  sessionReadOf: async () => {
    const read = sessionReadOf({ ...where, cookieHeader: cookie }, config);
    return (read instanceof Promise ? await read : read).session;
  },
};

let promises = 0;
const hook = createHook({
  init(_id, type) {
    if (type === "PROMISE") promises++;
  },
});
for (const [name, read] of Object.entries(reads)) {
  if ((await read())?.user?.email !== "ada@example.com") throw new Error(`${name}: no session`);
  for (let i = 0; i < READS / 10; i++) await read();
  hook.enable();
  promises = 0;
  const before = process.cpuUsage();
  for (let i = 0; i < READS; i++) await read();
  const cpu = process.cpuUsage(before);
  hook.disable();
  // Two of them are the loop's own: the async function called and the promise it awaits.
  console.log(
    `${name}: ${(promises / READS - 2).toFixed(1)} promises per read, ${((cpu.user + cpu.system) / READS).toFixed(1)} µs of CPU per read`,
  );
}
