/**
 * The one check of whether a database server a test needs is running.
 * @module services
 */
import { type AddressInfo, connect, createServer } from "node:net";

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

/**
 * Makes a PostgreSQL pool of a scratch database fail the run on any error but one: 57P01
 * ("terminating connection due to administrator command"), which `DROP DATABASE ... WITH (FORCE)`
 * at teardown sends to a connection that is still closing. Without a listener, pg throws that
 * error from its idle client and the test run counts an uncaught exception.
 *
 * @example
 * const pool = toleratesForcedDrop(new pg.Pool({ database }))
 */
export function toleratesForcedDrop<P extends { on(event: "error", listener: (error: Error) => void): unknown }>(
  pool: P,
): P {
  pool.on("error", (error) => {
    if ((error as { code?: string }).code !== "57P01") throw error;
  });
  return pool;
}

/**
 * ioredis options of a client whose server is down: a loopback port nothing listens on (taken
 * from the system, then closed), so every connection is refused, as when the server is stopped;
 * a command fails after one retry instead of waiting in the offline queue.
 *
 * @example
 * ```ts
 * const down = new Redis(await downRedisOptions())
 * down.on("error", () => {})
 * ```
 */
export async function downRedisOptions(): Promise<{
  host: string;
  port: number;
  maxRetriesPerRequest: number;
  retryStrategy: () => number;
}> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return { host: "127.0.0.1", port, maxRetriesPerRequest: 1, retryStrategy: () => 50 };
}
