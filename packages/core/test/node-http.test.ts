import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
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
