import { createHmac } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type AuthConfig, ExpressAuth } from "@latchkey/express";
import express from "express";
import { confirmationForm } from "../../core/test/email/helpers.js";

/**
 * Starts `app` on 127.0.0.1, port 0; returns its base URL (with `hostname`, `localhost` unless
 * the test wants the address itself) and a closer.
 */
export async function listen(
  app: {
    listen: (port: number, host: string, cb: () => void) => Server;
  },
  hostname: "localhost" | "127.0.0.1" = "localhost",
): Promise<{ url: string; close: () => Promise<void> }> {
  let server!: Server;
  await new Promise<void>((resolve) => {
    server = app.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${hostname}:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * An Express application with Latchkey mounted at `/auth` and nothing else, listening on a free port.
 *
 * @example
 * const { url, close } = await serveAuth(config);
 */
export function serveAuth(config: AuthConfig): Promise<{ url: string; close: () => Promise<void> }> {
  const application = express();
  application.use("/auth", ExpressAuth(config));
  return listen(application);
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

/** A cookie jar as the e-mail helpers of core's tests keep it (`CookieJar`). */
interface CookieHolder {
  readonly values: Map<string, string>;
  header(): string;
  take(response: Response): void;
}

/**
 * `fetch` of `url` (relative to `origin`) as the browser holding `jar`: its cookies sent, the
 * answer's cookies kept, redirects not followed.
 *
 * @example
 * const response = await fetchAt(origin, jar, "/auth/csrf");
 */
export async function fetchAt(
  origin: string,
  jar: CookieHolder,
  url: string,
  init: RequestInit = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  if (jar.values.size) headers.set("cookie", jar.header());
  const response = await fetch(new URL(url, origin), { ...init, headers, redirect: "manual" });
  jar.take(response);
  return response;
}

/**
 * Opens a magic link as a person would: GET it; in a browser other than the one that asked for it
 * that shows the confirmation page, whose button is then pressed (a POST with its CSRF token).
 *
 * @example
 * const done = await openLinkAt(origin, new CookieJar(), link); // 302 to the callback URL
 */
export async function openLinkAt(origin: string, jar: CookieHolder, url: string): Promise<Response> {
  const opened = await fetchAt(origin, jar, url);
  if (opened.status !== 200) return opened;
  const form = confirmationForm(await opened.text());
  if (!form) throw new Error("the link answered 200 without a confirmation form");
  return fetchAt(origin, jar, form.action, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form.fields),
  });
}

/** RFC 4226 HOTP over RFC 4648 base32, six digits: what an authenticator app shows at `step`. */
export function totpAt(secretBase32: string, step: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const char of secretBase32.replace(/=+$/, "")) bits += alphabet.indexOf(char).toString(2).padStart(5, "0");
  const key = Buffer.from(bits.match(/.{8}/g)?.map((byte) => Number.parseInt(byte, 2)) ?? []);
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac("sha1", key).update(counter).digest();
  const offset = (mac[mac.length - 1] as number) & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, "0");
}
