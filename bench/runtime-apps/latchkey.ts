// Latchkey's `Auth(request, config)` as a Worker module, for `npm run bench:runtimes`.
import { Auth } from "@latchkey/core";
import Credentials from "@latchkey/core/providers/credentials";
import { authWorker, credentialsFields, settings } from "./auth-worker.js";

export default authWorker(Auth, (secret) => ({
  ...settings(secret),
  providers: [Credentials({ credentials: credentialsFields, authorize: () => null })],
}));
