// Auth.js's `Auth(request, config)` (`@auth/core`) as a Worker module, for `npm run bench:runtimes`.
import { Auth } from "@auth/core";
import Credentials from "@auth/core/providers/credentials";
import { authWorker, credentialsFields, settings } from "./auth-worker.js";

export default authWorker(Auth, (secret) => ({
  ...settings(secret),
  providers: [Credentials({ credentials: credentialsFields, authorize: () => null })],
}));
