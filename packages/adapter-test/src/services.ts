/**
 * The one check of whether a database server a test needs is running.
 * @module services
 */
import { connect } from "node:net";

/**
 * Resolves `true` when something accepts TCP connections at `host:port`. When nothing does, it
 * throws if `process.env.CI` is set (a CI run must not pass by skipping), and otherwise prints a
 * visible notice and resolves `false`, so the caller can skip that server's tests.
 *
 * @example
 * ```ts
 * const postgresUp = await serviceAvailable("PostgreSQL", 5432)
 * runAdapterConformance("SqlAdapter (PostgreSQL)", setup, { skip: !postgresUp })
 * ```
 */
export async function serviceAvailable(
  name: string,
  port: number,
  host = "127.0.0.1",
  timeoutMs = 2000,
): Promise<boolean> {
  const error = await new Promise<Error | null>((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    socket.once("connect", () => {
      socket.end();
      resolve(null);
    });
    socket.once("error", resolve);
  });
  if (!error) return true;
  const where = `${name} at ${host}:${port} does not answer (${error.message})`;
  if (process.env.CI) {
    throw new Error(`${where}. CI is set, so its tests fail instead of being skipped: run scripts/ensure-services.sh.`);
  }
  console.warn(`\n*** ${where}: SKIPPING its tests. Start it with scripts/ensure-services.sh. ***\n`);
  return false;
}
