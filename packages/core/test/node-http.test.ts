import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { formFields, formRecord, nodeIncoming, parsedForm, readNodeForm } from "../src/internal.js";
import { writeNodeResponse } from "../src/lib/http/node-http.js";
import type { ResponseInternal } from "../src/types.js";

let close: (() => void) | undefined;
afterEach(() => close?.());

/** A plain Node server running one handler; returns its URL. */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  close = () => server.close();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("writeNodeResponse", () => {
  async function roundTrip(res: ResponseInternal, before?: (r: import("node:http").ServerResponse) => void) {
    const url = await serve((_req, out) => {
      before?.(out);
      writeNodeResponse(out, res);
    });
    return fetch(url, { redirect: "manual" });
  }
  it("writes status, headers, JSON body and one Set-Cookie per cookie, after the application's own", async () => {
    const response = await roundTrip(
      {
        status: 201,
        headers: { "Content-Type": "application/json", "X-A": "1" },
        body: { ok: true },
        cookies: [
          { name: "a", value: "1", options: { path: "/", httpOnly: true } },
          { name: "b", value: "", options: { maxAge: 0 } },
        ],
      },
      (out) => out.setHeader("Set-Cookie", "app=1"),
    );
    expect(response.status).toBe(201);
    expect(response.headers.get("x-a")).toBe("1");
    expect(response.headers.getSetCookie()).toEqual(["app=1", "a=1; Path=/; HttpOnly", "b=; Max-Age=0"]);
    expect(await response.json()).toEqual({ ok: true });
  });
  it("writes a redirect as 302 with its Location and no body", async () => {
    const redirect = await roundTrip({ redirect: "http://app.example/next" });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("location")).toBe("http://app.example/next");
    expect(await redirect.text()).toBe("");
  });
  it("writes HTML as it is, and an empty 404 without a body", async () => {
    const html = await roundTrip({ headers: { "Content-Type": "text/html; charset=utf-8" }, body: "<p>x</p>" });
    expect(await html.text()).toBe("<p>x</p>");
    const empty = await roundTrip({ status: 404 });
    expect(empty.status).toBe(404);
    expect(await empty.text()).toBe("");
  });
});

describe("rule: one description of a Node request (nodeIncoming), one client address rule", () => {
  /** The description of the one request a plain Node server receives, made by `describe`. */
  async function described(
    describe: (req: import("node:http").IncomingMessage) => Promise<unknown>,
    init: RequestInit = {},
  ): Promise<unknown> {
    let seen: unknown;
    const url = await serve(async (req, res) => {
      seen = await describe(req);
      res.end();
    });
    await fetch(url, init);
    return seen;
  }

  it("the configuration's clientAddress wins over the framework's peer; given a Request with the request's headers and URL", async () => {
    const urls: string[] = [];
    const config = {
      clientAddress: (request: Request) => {
        urls.push(request.url);
        return request.headers.get("x-client");
      },
    };
    const address = await described(
      async (req) =>
        nodeIncoming(req, config, { protocol: "https", host: "app.example", path: "/auth/x", peer: "10.0.0.1" })
          .clientIp,
      { headers: { "x-client": "203.0.113.9" } },
    );
    expect(address).toBe("203.0.113.9");
    expect(urls).toEqual(["https://app.example/auth/x"]);
  });

  it("attack: a clientAddress that throws or answers nothing counts as unset: the peer, never a 500", async () => {
    for (const clientAddress of [
      () => {
        throw new Error("no header");
      },
      () => "",
      () => null,
    ]) {
      const address = await described(
        async (req) =>
          nodeIncoming(req, { clientAddress }, { protocol: "http", host: "h", path: "/", peer: "10.0.0.1" }).clientIp,
      );
      expect(address).toBe("10.0.0.1");
    }
  });

  it("attack: a hostile Host that no URL can hold still gives an answer: the peer", async () => {
    const address = await described(
      async (req) =>
        nodeIncoming(
          req,
          { clientAddress: () => "203.0.113.9" },
          { protocol: "http", host: "evil host/\\", path: "/", peer: "10.0.0.1" },
        ).clientIp,
    );
    expect(address).toBe("10.0.0.1");
  });

  it("without the option the peer; a body a framework parsed is used as it is, else the stream is read within the bound", async () => {
    const seen = (await described(
      async (req) => {
        const parsed = nodeIncoming(
          req,
          {},
          { protocol: "http", host: "h", path: "/", peer: "10.0.0.2", parsed: () => ({ a: "1" }) },
        );
        const streamed = nodeIncoming(req, {}, { protocol: "http", host: "h", path: "/" });
        return {
          ip: parsed.clientIp,
          parsed: await parsed.body(),
          streamed: await streamed.body(),
          none: streamed.clientIp,
        };
      },
      { method: "POST", body: "a=2" },
    )) as Record<string, unknown>;
    expect(seen).toEqual({ ip: "10.0.0.2", parsed: { a: "1" }, streamed: "a=2", none: undefined });
  });
});

describe("rule: the first of a repeated form field wins, wherever a form is read", () => {
  it("formRecord: the first value of each name; files and Next.js's $ACTION fields are not fields", () => {
    const form = new FormData();
    form.append("csrfToken", "first");
    form.append("csrfToken", "second");
    form.append("$ACTION_ID_1", "x");
    form.append("file", new Blob(["x"]));
    form.append("email", "ada@example.com");
    expect(formRecord(form as unknown as Iterable<[string, unknown]>)).toEqual({
      csrfToken: "first",
      email: "ada@example.com",
    });
    expect(formFields(form)).toEqual({ csrfToken: "first", email: "ada@example.com" });
    expect(formRecord(new URLSearchParams("a=1&a=2&b=3"))).toEqual({ a: "1", b: "3" });
  });

  it("a form a body parser made lists of (express.urlencoded) is its first values; JSON is kept as it is", () => {
    const form = "application/x-www-form-urlencoded; charset=utf-8";
    expect(parsedForm(form, { csrfToken: ["first", "second"], a: "1" })).toEqual({ csrfToken: "first", a: "1" });
    expect(parsedForm("application/json", { list: ["a", "b"] })).toEqual({ list: ["a", "b"] });
  });
});

describe("readNodeForm: the form of a Node request for the account functions", () => {
  async function formOf(init: RequestInit, parsed?: unknown): Promise<unknown> {
    let seen: unknown;
    const url = await serve(async (req, res) => {
      try {
        seen = await readNodeForm(req, parsed);
      } catch (e) {
        seen = { status: (e as { status?: number }).status };
      }
      res.end();
    });
    await fetch(url, init);
    return seen;
  }
  const form = { "content-type": "application/x-www-form-urlencoded" };

  it("the stream's form or JSON object, the first of a repeated field winning; {} for a GET", async () => {
    expect(await formOf({ method: "POST", headers: form, body: "email=a%40x&email=b%40x" })).toEqual({ email: "a@x" });
    expect(
      await formOf({ method: "POST", headers: { "content-type": "application/json" }, body: '{"email":"a@x"}' }),
    ).toEqual({
      email: "a@x",
    });
    expect(await formOf({ method: "GET" })).toEqual({});
  });

  it("a body parser's record is used, its lists read as their first value", async () => {
    expect(await formOf({ method: "POST", headers: form, body: "x=1" }, { email: ["a@x", "b@x"] })).toEqual({
      email: "a@x",
    });
  });

  it("attack: a JSON body that does not parse, or an oversized one, is a 4xx (BadBody), never a 5xx", async () => {
    expect(await formOf({ method: "POST", headers: { "content-type": "application/json" }, body: "{" })).toEqual({
      status: 400,
    });
    expect(await formOf({ method: "POST", headers: form, body: `a=${"x".repeat(70 * 1024)}` })).toEqual({
      status: 413,
    });
  });
});
