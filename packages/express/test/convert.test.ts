import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { toIncoming } from "../src/convert.js";

let close: (() => void) | undefined;
afterEach(() => close?.());

/** A plain Node server running one handler; returns its URL. */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  close = () => server.close();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("toIncoming", () => {
  it("describes method, path, host, headers, client address and a lazily read form body of a Node request", async () => {
    let bodyReadBeforeAsked = true;
    const url = await serve(async (req, res) => {
      const incoming = toIncoming(req);
      bodyReadBeforeAsked = req.readableEnded;
      const body = await incoming.body();
      res.end(
        JSON.stringify({
          method: incoming.method,
          path: incoming.path,
          protocol: incoming.protocol,
          host: incoming.host,
          header: incoming.headers.get("X-Test"),
          missing: incoming.headers.get("x-missing"),
          clientIp: incoming.clientIp,
          mountPath: incoming.mountPath ?? null,
          webHeader: incoming.webHeaders().get("x-test"),
          body,
        }),
      );
    });
    const { port } = new URL(url);
    const response = await fetch(`${url}/auth/callback/credentials?a=1&a=2&b=x`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-test": "yes" },
      body: "username=ada&password=p%26w",
    });
    expect(await response.json()).toEqual({
      method: "POST",
      path: "/auth/callback/credentials?a=1&a=2&b=x",
      protocol: "http",
      host: `127.0.0.1:${port}`,
      header: "yes",
      missing: null,
      clientIp: "127.0.0.1",
      mountPath: null,
      webHeader: "yes",
      body: "username=ada&password=p%26w",
    });
    expect(bodyReadBeforeAsked).toBe(false);
  });
  it("refuses a body over 64 KiB with a 413 BadBody, by declared length and while streaming", async () => {
    const url = await serve(async (req, res) => {
      try {
        await toIncoming(req).body();
        res.end("read");
      } catch (e) {
        res.statusCode = (e as { status?: number }).status ?? 500;
        res.end((e as Error).constructor.name);
      }
    });
    const declared = await fetch(`${url}/auth/session`, { method: "POST", body: "x".repeat(70_000) });
    expect([declared.status, await declared.text()]).toEqual([413, "BadBody"]);
    const streamed = await fetch(`${url}/auth/session`, {
      method: "POST",
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 10; i++) controller.enqueue(new Uint8Array(8 * 1024));
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect([streamed.status, await streamed.text()]).toEqual([413, "BadBody"]);
  });
});
