// A Cloudflare Worker serving the demo (`portable.ts`): `wrangler dev` with `main` set to this
// file, AUTH_SECRET in `.dev.vars` (or `wrangler secret put AUTH_SECRET`). The variables arrive
// with the first request, so the demo is made then, once per isolate.
import { type PortableDemoEnv, portableDemo } from "./portable.js";

let demo: ReturnType<typeof portableDemo> | undefined;

export default {
  fetch(request: Request, env: PortableDemoEnv): Promise<Response> {
    demo ??= portableDemo(env);
    return demo.fetch(request);
  },
};
