// Preloaded into the chatbot's server (NODE_OPTIONS="--require <this file>", with
// FAKE_GATEWAY_ORIGIN=http://127.0.0.1:<port>): requests the process makes to the Vercel AI
// Gateway's host go to the local fake gateway instead, path and all. `@ai-sdk/gateway` has its
// address written in (no environment variable moves it), so this stands in for a DNS entry; the
// application's code is not touched. Every other request is left as it is.
const gatewayHost = "ai-gateway.vercel.sh";
const target = process.env.FAKE_GATEWAY_ORIGIN;
if (!target) throw new Error("route-gateway.cjs: set FAKE_GATEWAY_ORIGIN (e.g. http://127.0.0.1:4290)");
const original = globalThis.fetch;
globalThis.fetch = function fetchThroughFakeGateway(input, init) {
  const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
  if (url.host !== gatewayHost) return original(input, init);
  const moved = new URL(`${url.pathname}${url.search}`, target);
  return original(input instanceof Request ? new Request(moved, input) : moved, init);
};
