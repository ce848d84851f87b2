import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { ResponseInternal } from "@latchkey/core";
import { afterEach, describe, expect, it } from "vitest";
import { toInternalRequest, writeResponse } from "../src/convert.js";

let close: (() => void) | undefined;
afterEach(() => close?.());

/** A plain Node server running one handler; returns its URL. */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  close = () => server.close();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("toInternalRequest", () => {
  it("reads method, action, provider, query, cookies, headers and a form body from a Node request", async () => {
    const url = await serve(async (req, res) => {
      const r = await toInternalRequest(req, "/auth", "http://app.example");
      res.end(
        JSON.stringify({ ...r, url: r.url.href, headers: r.headers.get("x-test"), request: r.toRequest().method }),
      );
    });
    const response = await fetch(`${url}/auth/callback/credentials?a=1&a=2&b=x`, {
      method: "POST",
      headers: {
        cookie: "k=v; e=%7C",
        "content-type": "application/x-www-form-urlencoded",
        "x-test": "yes",
        "x-auth-return-redirect": "1",
      },
      body: "username=ada&password=p%26w",
    });
    expect(await response.json()).toMatchObject({
      url: "http://app.example/auth/callback/credentials?a=1&a=2&b=x",
      method: "POST",
      action: "callback",
      providerId: "credentials",
      query: { a: "1", b: "x" },
      cookies: { k: "v", e: "|" },
      body: { username: "ada", password: "p&w" },
      headers: "yes",
      returnRedirectAsJson: true,
      request: "POST",
    });
  });
  it("parses JSON bodies and refuses oversized ones, unknown actions and other methods", async () => {
    const url = await serve(async (req, res) => {
      try {
        const r = await toInternalRequest(req, "/auth", "http://app.example");
        res.end(JSON.stringify({ body: r.body }));
      } catch (e) {
        res.statusCode = (e as { status?: number }).status ?? 400;
        res.end(JSON.stringify({ error: (e as Error).constructor.name }));
      }
    });
    const json = await fetch(`${url}/auth/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"data":{"x":1}}',
    });
    expect(await json.json()).toEqual({ body: { data: { x: 1 } } });
    const big = await fetch(`${url}/auth/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `"${"x".repeat(70_000)}"`,
    });
    expect(big.status).toBe(413);
    expect(await (await fetch(`${url}/auth/admin`)).json()).toEqual({ error: "UnknownAction" });
    expect(await (await fetch(`${url}/auth/session`, { method: "DELETE" })).json()).toEqual({ error: "UnknownAction" });
  });
});

describe("writeResponse", () => {
  async function roundTrip(
    res: ResponseInternal,
    asJson = false,
    before?: (r: import("node:http").ServerResponse) => void,
  ) {
    const url = await serve((_req, out) => {
      before?.(out);
      writeResponse(out, res, asJson);
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
      false,
      (out) => out.setHeader("Set-Cookie", "app=1"),
    );
    expect(response.status).toBe(201);
    expect(response.headers.get("x-a")).toBe("1");
    expect(response.headers.getSetCookie()).toEqual(["app=1", "a=1; Path=/; HttpOnly", "b=; Max-Age=0"]);
    expect(await response.json()).toEqual({ ok: true });
  });
  it("writes a redirect as 302 Location, or as 200 {url} when asked", async () => {
    const redirect = await roundTrip({ redirect: "http://app.example/next" });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("location")).toBe("http://app.example/next");
    const asJson = await roundTrip({ redirect: "http://app.example/next" }, true);
    expect(asJson.status).toBe(200);
    expect(await asJson.json()).toEqual({ url: "http://app.example/next" });
  });
  it("writes HTML as it is, and an empty 404 without a body", async () => {
    const html = await roundTrip({ headers: { "Content-Type": "text/html; charset=utf-8" }, body: "<p>x</p>" });
    expect(await html.text()).toBe("<p>x</p>");
    const empty = await roundTrip({ status: 404 });
    expect(empty.status).toBe(404);
    expect(await empty.text()).toBe("");
  });
});
