/**
 * A TCP proxy on loopback for fault tests: forwards to a local server (PostgreSQL, Redis, ...)
 * and can, at any moment, add latency to every chunk, swallow traffic (a black hole: connections
 * stay open, nothing comes back), reset every connection, or refuse new ones. Shared by the fault
 * tests; packages/express/test/scale-out.test.ts has an older start/stop-only version.
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
    await new Promise<void>((resolve) => s.listen(port, "127.0.0.1", resolve));
    port = (s.address() as { port: number }).port;
    server = s;
  }

  await listen();
  return proxy;
}
