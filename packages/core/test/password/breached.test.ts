/**
 * The breached-password check against a local server that implements Have I Been Pwned's range
 * API (`GET /range/{5 hex}`, `SUFFIX:COUNT` lines, `Add-Padding: true` adds count-0 lines). The
 * server records every request, so the tests prove what left the process.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { checkBreachedPassword, isBreachedPassword } from "../../src/password.js";

const sha1 = (text: string) => createHash("sha1").update(text, "utf8").digest("hex").toUpperCase();

// The corpus the server knows: password → times seen.
const corpus = new Map<string, number>([
  ["password123", 2_254_650],
  ["qwertyuiop", 1_117_000],
  ["пароль", 4_203],
  ["Tr0ub4dor&3", 17],
]);

type Mode = "range" | "lowercase" | "hang" | "trickle" | "error" | "garbage" | "huge";
let mode: Mode = "range";
let server: Server;
let endpoint = "";
const requests: Array<{ url: string; headers: IncomingMessage["headers"]; body: string }> = [];
const open = new Set<ServerResponse>();

function rangeBody(prefix: string, padding: boolean): string {
  const lines: string[] = [];
  for (const [password, count] of corpus) {
    const hash = sha1(password);
    if (hash.startsWith(prefix)) lines.push(`${hash.slice(5)}:${count}`);
  }
  // Unrelated suffixes with real counts, and padding lines with count 0, as the real API sends.
  for (let i = 0; i < 40; i++) lines.push(`${randomBytes(18).toString("hex").slice(0, 35).toUpperCase()}:${i + 1}`);
  if (padding)
    for (let i = 0; i < 200; i++) lines.push(`${randomBytes(18).toString("hex").slice(0, 35).toUpperCase()}:0`);
  return lines.sort(() => Math.random() - 0.5).join("\r\n");
}

function handle(req: IncomingMessage, res: ServerResponse) {
  let body = "";
  req.on("data", (chunk) => {
    body += chunk;
  });
  req.on("end", () => {
    requests.push({ url: req.url ?? "", headers: req.headers, body });
    const match = /^\/range\/([0-9A-F]{5})$/.exec(req.url ?? "");
    if (!match) {
      res.writeHead(404).end();
      return;
    }
    const padding = req.headers["add-padding"] === "true";
    switch (mode) {
      case "range":
        res.writeHead(200, { "content-type": "text/plain" }).end(rangeBody(match[1] as string, padding));
        return;
      case "lowercase":
        res.writeHead(200).end(rangeBody(match[1] as string, padding).toLowerCase());
        return;
      case "hang": // never answers
        open.add(res);
        return;
      case "trickle": // headers at once, then one line and silence
        open.add(res);
        res.writeHead(200);
        res.write("0018A45C4D1DEF81644B54AB7F969B88D65:1\r\n");
        return;
      case "error":
        res.writeHead(503).end("Service Unavailable");
        return;
      case "garbage":
        res.writeHead(200).end("<html><body>Cloudflare says hello</body></html>");
        return;
      case "huge":
        res.writeHead(200).end(`${"A".repeat(35)}:1\r\n`.repeat(60_000));
        return;
    }
  });
}

beforeAll(async () => {
  server = createServer(handle);
  server.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of open) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  mode = "range";
  requests.length = 0;
});

describe("k-anonymity: only the first 5 hex characters of the SHA-1 leave the process (HIBP range API)", () => {
  it.each([...corpus])(
    "a breached password (%s) is found with its count; the request held the prefix and asked for padding",
    async (password, count) => {
      const logs: string[] = [];
      const result = await checkBreachedPassword(password, { endpoint, log: (m) => logs.push(m) });
      expect(result).toEqual({ status: "found", breached: true, count });
      expect(requests).toHaveLength(1);
      const [request] = requests;
      const hash = sha1(password);
      expect(request?.url).toBe(`/range/${hash.slice(0, 5)}`);
      expect(request?.headers["add-padding"]).toBe("true");
      expect(request?.body).toBe("");
      const everything = JSON.stringify(request);
      expect(everything).not.toContain(hash.slice(5, 12));
      expect(everything.toLowerCase()).not.toContain(hash.slice(5, 12).toLowerCase());
      expect(everything).not.toContain(password);
      expect(logs).toEqual([]);
    },
  );

  it("a password not in the corpus is not-found (unrelated lines and count-0 padding lines ignored)", async () => {
    const password = `unique-${randomBytes(12).toString("hex")}`;
    expect(await checkBreachedPassword(password, { endpoint })).toEqual({
      status: "not-found",
      breached: false,
      count: 0,
    });
    expect(requests[0]?.url).toBe(`/range/${sha1(password).slice(0, 5)}`);
    expect(await isBreachedPassword(password, { endpoint })).toBe(false);
    expect(await isBreachedPassword("password123", { endpoint })).toBe(true);
  });

  it("a padding line carrying the password's own suffix with count 0 is not a breach", async () => {
    const password = `padded-${randomBytes(8).toString("hex")}`;
    corpus.set(password, 0);
    try {
      expect(await checkBreachedPassword(password, { endpoint })).toMatchObject({
        status: "not-found",
        breached: false,
      });
    } finally {
      corpus.delete(password);
    }
  });

  it("suffixes compare case-insensitively (a server answering in lower case)", async () => {
    mode = "lowercase";
    expect(await checkBreachedPassword("Tr0ub4dor&3", { endpoint })).toEqual({
      status: "found",
      breached: true,
      count: 17,
    });
  });

  it("an endpoint with a trailing slash and an injected fetch are honoured", async () => {
    const seen: string[] = [];
    const recording: typeof fetch = (input, init) => {
      seen.push(String(input));
      return fetch(input, init);
    };
    await checkBreachedPassword("qwertyuiop", { endpoint: `${endpoint}//`, fetch: recording });
    expect(seen).toEqual([`${endpoint}/range/${sha1("qwertyuiop").slice(0, 5)}`]);
  });
});

describe("an unanswered check is 'unknown': fail-open by default (logged), fail-closed on request", () => {
  const cases: Array<[string, Mode]> = [
    ["no answer within the timeout", "hang"],
    ["headers, then a body that never ends, within the timeout", "trickle"],
    ["a 5xx", "error"],
    ["a body that is not a range list", "garbage"],
    ["a body over 1 MiB", "huge"],
  ];
  it.each(cases)(
    "%s: fail-open → breached false with a logged reason; fail-closed → breached true",
    async (_, which) => {
      mode = which;
      const logs: string[] = [];
      const log = (m: string) => logs.push(m);
      const open = await checkBreachedPassword("password123", { endpoint, timeoutMs: 300, log });
      expect(open).toMatchObject({ status: "unknown", breached: false, count: 0 });
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatch(/fail-open/);
      expect(logs[0]).not.toContain("password123");
      const closed = await checkBreachedPassword("password123", {
        endpoint,
        timeoutMs: 300,
        log,
        onUnavailable: "fail-closed",
      });
      expect(closed).toMatchObject({ status: "unknown", breached: true, count: 0 });
      expect(logs[1]).toMatch(/fail-closed/);
      expect(
        await isBreachedPassword("password123", { endpoint, timeoutMs: 300, log, onUnavailable: "fail-closed" }),
      ).toBe(true);
    },
  );

  it("an unreachable endpoint (connection refused) is unknown too", async () => {
    const closedServer = createServer();
    closedServer.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => closedServer.once("listening", () => resolve()));
    const port = (closedServer.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closedServer.close(() => resolve()));
    const logs: string[] = [];
    const result = await checkBreachedPassword("password123", {
      endpoint: `http://127.0.0.1:${port}`,
      log: (m) => logs.push(m),
    });
    expect(result).toMatchObject({ status: "unknown", breached: false });
    expect(logs[0]).toMatch(/unreachable/);
  });

  it("a fractional timeout (a deadline scaled by a factor) is waited in whole milliseconds, not refused", async () => {
    mode = "hang";
    const logs: string[] = [];
    const result = await checkBreachedPassword("password123", {
      endpoint,
      timeoutMs: 100 * 2.3,
      log: (m) => logs.push(m),
    });
    expect(result).toMatchObject({ status: "unknown", breached: false });
    expect(logs[0]).toMatch(/no answer/);
  });

  it("bad options are caller mistakes and throw at once", async () => {
    await expect(checkBreachedPassword("x", { endpoint, onUnavailable: "closed" as never })).rejects.toThrow(
      /onUnavailable/,
    );
    await expect(checkBreachedPassword("x", { endpoint, timeoutMs: 0 })).rejects.toThrow(/timeoutMs/);
    expect(requests).toHaveLength(0);
  });
});
