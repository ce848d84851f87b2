// `npm start` (after `npm run build`): the demo on SvelteKit, with the settings of the environment
// (see `runDemo`). The storage, mail catcher and identity provider are the Express demo's; the
// SvelteKit app (adapter-node's handler) finds them on `event.platform.req`.
import { runDemo } from "@latchkey/express-demo/demo";

await runDemo("SvelteKit", {
  async app(demo) {
    // adapter-node builds each request's URL from ORIGIN (read when its handler loads); without it,
    // from `Host` with the scheme https, and SvelteKit's own CSRF check refuses our http forms.
    process.env.ORIGIN ??= demo.url;
    const { handler } = await import("./build/handler.js");
    return (req, res) => {
      req.latchkeyDemo = demo;
      handler(req, res);
    };
  },
});
