/**
 * What Latchkey's and Auth.js's Worker modules of `npm run bench:runtimes` share: the same
 * configuration (JWT sessions, a credentials provider as in bench/server.mjs, a silent logger,
 * the secret from the Worker's variables), made by the first request, and `Auth(request, config)`
 * of the library each one imports.
 */
export const settings = (secret: string | undefined) => ({
  secret,
  trustHost: true,
  basePath: "/auth",
  logger: { error() {}, warn() {}, debug() {} },
});

export const credentialsFields = { username: {}, password: {} };

/** A Worker module answering every request with `auth(request, config)`. */
export function authWorker<C>(
  auth: (request: Request, config: C) => Promise<Response>,
  configure: (secret: string | undefined) => C,
) {
  let config: C | undefined;
  return {
    fetch(request: Request, env: { AUTH_SECRET?: string }): Promise<Response> {
      config ??= configure(env.AUTH_SECRET);
      return auth(request, config);
    },
  };
}
