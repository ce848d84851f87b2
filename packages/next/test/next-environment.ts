// Next.js's server sets up its Node environment (AsyncLocalStorage on globalThis) before any of
// its modules load; a test imports this first, before anything that loads next/headers.
import "next/dist/server/node-environment-baseline.js";
