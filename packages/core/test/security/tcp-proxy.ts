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
  /** The mode it is in. */
  readonly mode: ProxyMode;
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

  // Each direction keeps its bytes in order: a chunk that arrives once the link is fast again
  // waits behind those still delayed (a protocol's stream never has its bytes reordered).
  const forward = (from: Socket, to: Socket, state: { delayMs: number }) => {
    const queue: Array<{ at: number; chunk: Buffer }> = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const drain = () => {
      timer = undefined;
      for (let head = queue[0]; head; head = queue[0]) {
        const wait = head.at - performance.now();
        if (wait > 0) {
          timer = setTimeout(drain, wait);
          return;
        }
        queue.shift();
        if (to.writable) to.write(head.chunk);
      }
    };
    from.on("data", (chunk: Buffer) => {
      if (mode === "blackhole") return;
      if (mode !== "delay" && queue.length === 0) {
        if (to.writable) to.write(chunk);
        return;
      }
      const due = mode === "delay" ? performance.now() + state.delayMs : 0;
      queue.push({ at: Math.max(due, queue.at(-1)?.at ?? 0), chunk });
      if (!timer) drain();
    });
  };

  const proxy: TcpProxy = {
    get port() {
      return port;
    },
    get mode() {
      return mode;
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

/**
 * A link a test slows down for real (the `slowLink` of the adapter-test suites): the store built
 * by `storeOn` talks to the server at `targetPort` through a new proxy; `slow(ms)` delays every
 * chunk by `ms` each way (connections already open included), `restore` lets them through at
 * once again, and `end` runs the store's own `end` (its pool's or client's) and closes the proxy.
 *
 * @example
 * slowLink: () => slowLinkBehindProxy(5432, (port) => { const pool = ...; return { store, end: () => pool.end() } })
 */
export async function slowLinkBehindProxy<S>(
  targetPort: number,
  storeOn: (port: number) => { store: S; end: () => Promise<void> },
) {
  const proxy = await startTcpProxy(targetPort);
  const { store, end } = storeOn(proxy.port);
  return {
    store,
    async slow(ms: number) {
      proxy.delayMs = ms;
      await proxy.setMode("delay");
    },
    blackhole: () => proxy.setMode("blackhole"),
    async restore() {
      // What a black hole swallowed is gone: its connections are reset, as TCP would end them.
      const wasSwallowing = proxy.mode === "blackhole";
      await proxy.setMode("pass");
      if (wasSwallowing) proxy.resetAll();
    },
    async end() {
      try {
        await end();
      } finally {
        await proxy.close();
      }
    },
  };
}
