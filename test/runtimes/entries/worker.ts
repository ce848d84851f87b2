// The pipeline's application (`core-app.ts`) as a Worker module: workerd calls `fetch` with the
// Worker's variables; the Edge runtime host calls it as Next.js calls an Edge function, with its
// `process.env`. The application is made by the first request, once per isolate.
import { type CoreAppEnv, coreApp } from "../core-app.js";

let app: ReturnType<typeof coreApp> | undefined;

export default {
  fetch(request: Request, env: CoreAppEnv): Promise<Response> {
    app ??= coreApp(env);
    return app.fetch(request);
  },
};
