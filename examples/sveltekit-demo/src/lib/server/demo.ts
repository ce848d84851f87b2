import type { AppOptions } from "@latchkey/express-demo/demo";
import { layout } from "@latchkey/express-demo/pages";
import type { RequestEvent } from "@sveltejs/kit";

/** The demo's configuration, storage and mailbox, which `server.js` put on the request. */
export function demoOf(event: RequestEvent): AppOptions {
  const demo = event.platform?.req.latchkeyDemo;
  if (!demo) throw new Error("Start the demo with `npm start` (server.js), not `vite dev`.");
  return demo;
}

/** A whole page of the shared demo pages as a response. */
export function page(event: RequestEvent, title: string, body: string): Response {
  return new Response(layout(title, body, !!demoOf(event).mailbox), {
    headers: { "content-type": "text/html; charset=utf-8" },
  });
}
