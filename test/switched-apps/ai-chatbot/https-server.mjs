// Serves a built Next.js application over HTTPS, as its host would: run in the application's folder
// after `next build`: node https-server.mjs <port> <key.pem> <cert.pem>. See README.md.
//
// Vercel's AI chatbot reads its token with `secureCookie: !isDevelopmentEnvironment`, so a
// production build looks only for the `__Secure-` cookie, which a library sets only on an https
// URL: under plain `next start` on http the proxy never sees a session and sends every page to the
// guest sign-in again. This is Next.js's documented custom server (`next({ dev: false })` and its
// request handler) behind `node:https`; both copies of the application are served the same way.
import { readFileSync } from "node:fs";
import { createServer } from "node:https";
import { createRequire } from "node:module";
import { join } from "node:path";

const [portArgument, keyFile, certFile] = process.argv.slice(2);
const port = Number(portArgument);
if (!Number.isInteger(port) || port <= 0 || !keyFile || !certFile) {
  console.error("usage: node https-server.mjs <port> <key.pem> <cert.pem>   (in the application's folder)");
  process.exit(2);
}
// The application's own Next.js, not one next to this script.
const next = createRequire(join(process.cwd(), "package.json"))("next");
const app = next({ dev: false, dir: process.cwd(), hostname: "localhost", port });
await app.prepare();
const handle = app.getRequestHandler();
createServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, (request, response) =>
  handle(request, response),
).listen(port, () => console.log(`${process.cwd()} on https://localhost:${port}`));
