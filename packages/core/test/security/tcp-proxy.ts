/**
 * A TCP proxy on loopback for fault tests: forwards to a local server (PostgreSQL, Redis, ...)
 * and can, at any moment, add latency to every chunk, swallow traffic (a black hole: connections
 * stay open, nothing comes back), reset every connection, or refuse new ones. Shared by the fault
 * tests (core and Express).
 */
import { connect, createServer, type Server, type Socket } from "node:net";

export type ProxyMode = "pass" | "delay" | "blackhole" | "refuse";

export interface TcpProxy {
  readonly port: number;
  /** Latency added to each chunk in "delay" mode. */
  delayMs: number;
  /** Switches mode; "refuse" closes the listener (connection refused), any other mode reopens it. */
  setMode(mode: ProxyMode): Promise<void>;
  /** Resets (RST) every open connection, in any mode. */
  resetAll(): void;
  close(): Promise<void>;
}

/**
 * Listens on a free port under Linux's ephemeral range (32768 and up). While the proxy refuses, a
 * client retrying every few milliseconds is given ephemeral source ports one after another; had
 * the proxy's own port come from that range, one retry would sooner or later get it as its source
 * port and connect to itself (TCP self-connect), and a Redis client then takes the echo of its own
 * SUBSCRIBE for the server's answer: an outage that is never seen.
 */
async function freePortBelowEphemeralRange(server: Server): Promise<number> {
  for (;;) {
    const candidate = 20_000 + Math.floor(Math.random() * 12_000);
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
      server.once("error", resolve);
      server.listen(candidate, "127.0.0.1", () => {
        server.removeListener("error", resolve);
        resolve(null);
      });
    });
    if (!error) return candidate;
    if (error.code !== "EADDRINUSE") throw error;
  }
}

export async function startTcpProxy(targetPort: number, targetHost = "127.0.0.1"): Promise<TcpProxy> {
  let mode: ProxyMode = "pass";
  let server: Server | undefined;
  let port = 0;
  const sockets = new Set<Socket>();

  const forward = (from: Socket, to: Socket, state: { delayMs: number }) => {
    from.on("data", (chunk) => {
      if (mode === "blackhole") return;
      if (mode === "delay") setTimeout(() => to.writable && to.write(chunk), state.delayMs);
      else if (to.writable) to.write(chunk);
    });
  };

  const proxy: TcpProxy = {
    get port() {
      return port;
    },
    delayMs: 200,
    async setMode(next) {
      mode = next;
      if (next === "refuse" && server) {
        const closing = server;
        server = undefined;
        proxy.resetAll();
        await new Promise<void>((resolve) => closing.close(() => resolve()));
      } else if (next !== "refuse" && !server) {
        await listen();
      }
    },
    resetAll() {
      for (const socket of sockets) socket.resetAndDestroy();
      sockets.clear();
    },
    async close() {
      await proxy.setMode("refuse");
    },
  };

  async function listen(): Promise<void> {
    const s = createServer((client) => {
      const upstream = connect(targetPort, targetHost);
      sockets.add(client).add(upstream);
      forward(client, upstream, proxy);
      forward(upstream, client, proxy);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on("error", drop).on("close", drop);
      upstream.on("error", drop).on("close", drop);
    });
    if (port === 0) port = await freePortBelowEphemeralRange(s);
    else await new Promise<void>((resolve) => s.listen(port, "127.0.0.1", resolve));
    server = s;
  }

  await listen();
  return proxy;
}

/**
 * A real outage of a store (the `outage` of the adapter-test suites): the store built by `storeOn`
 * talks to the server at `targetPort` through a new proxy; `cut` resets its open connections and
 * refuses new ones (the server went away), `restore` lets them through again.
 *
 * @example
 * outage: () => outageBehindProxy(6379, (port) => RedisRevocationStore(new Redis({ port }), new Redis({ port })))
 */
export async function outageBehindProxy<S>(targetPort: number, storeOn: (port: number) => S) {
  const proxy = await startTcpProxy(targetPort);
  return {
    store: storeOn(proxy.port),
    cut: () => proxy.setMode("refuse"),
    restore: () => proxy.setMode("pass"),
    close: () => proxy.close(),
  };
}
