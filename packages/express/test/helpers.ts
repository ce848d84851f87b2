import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/** Starts `app` on 127.0.0.1, port 0; returns its base URL and a closer. */
export async function listen(app: {
  listen: (port: number, host: string, cb: () => void) => Server;
}): Promise<{ url: string; close: () => Promise<void> }> {
  let server!: Server;
  await new Promise<void>((resolve) => {
    server = app.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A cookie jar for fetch: applies Set-Cookie (deletions included), sends Cookie. */
export class Jar {
  readonly cookies = new Map<string, string>();
  apply(response: Response): Response {
    for (const header of response.headers.getSetCookie()) {
      const [pair, ...attributes] = header.split(";");
      const eq = (pair as string).indexOf("=");
      const name = (pair as string).slice(0, eq).trim();
      const value = (pair as string).slice(eq + 1).trim();
      if (value === "" || attributes.some((a) => /^\s*max-age=0\s*$/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  async fetch(url: string, init: RequestInit & { form?: Record<string, string> } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set("cookie", this.header());
    let body = init.body;
    if (init.form) {
      headers.set("content-type", "application/x-www-form-urlencoded");
      body = new URLSearchParams(init.form).toString();
    }
    return this.apply(
      await fetch(url, { ...init, body, headers, redirect: "manual", method: init.method ?? (body ? "POST" : "GET") }),
    );
  }
}
