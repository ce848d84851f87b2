/**
 * Adversarial review (feat-n), rule "header-safe output: nothing from the request reaches a header
 * unencoded" (docs/security.md, Redirects; Host and origin). A parameterised mount
 * (`app.use("/:tenant/auth", ExpressAuth(config))`, which docs/security.md lists as supported)
 * makes the request's own path segment part of `basePath`, and the e-mail code cookie is scoped
 * with `Path=<basePath>` (lib/flows/email-code.ts `codeCookie`) through `serializeCookie`, which
 * writes `path` as is. A `;` in the tenant segment (Express keeps it raw in `req.baseUrl`) then
 * adds cookie attributes of the attacker's choosing: `Domain=<parent domain>` sends the sealed code
 * cookie to every sibling sub-domain, `Max-Age=0` deletes it at once.
 */
import type { Server } from "node:http";
import { createMemoryStore, MemoryAdapter } from "@latchkey/core/memory-adapter";
import { type AuthConfig, ExpressAuth } from "@latchkey/express";
import Nodemailer from "@latchkey/express/providers/nodemailer";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SECRET, type SmtpFixture, smtpServer, startSmtp } from "../../core/test/email/helpers.js";

let smtp: SmtpFixture;
let server: Server;
let origin: string;

beforeAll(async () => {
  smtp = await startSmtp();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter: MemoryAdapter(createMemoryStore()),
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    rateLimit: false,
    providers: [Nodemailer({ server: smtpServer(smtp.port), from: "Latchkey <no-reply@app.test>", code: true })],
  };
  const app = express();
  app.use("/:tenant/auth", ExpressAuth(config));
  await new Promise<void>((resolve) => {
    server = app.listen(0, "127.0.0.1", () => resolve());
  });
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await smtp?.close();
});

/** Requests a code e-mail under the mount path `base`; returns the Set-Cookie of the code cookie. */
async function codeCookieUnder(base: string): Promise<string | undefined> {
  const csrf = await fetch(`${origin}${base}/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const cookie = csrf.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const response = await fetch(`${origin}${base}/signin/nodemailer`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ csrfToken, email: "victim@app.test" }).toString(),
  });
  expect(response.status).toBe(302);
  return response.headers.getSetCookie().find((c) => c.startsWith("authjs.email-code="));
}

/** The attribute names of a Set-Cookie value (after name=value), lower-cased. */
const attributes = (setCookie: string) =>
  setCookie
    .split(";")
    .slice(1)
    .map((a) => a.trim().split("=")[0]?.toLowerCase());

describe("rule: nothing from the request adds a cookie attribute (parameterised mount paths)", () => {
  it("control: an ordinary tenant gets the code cookie scoped to its auth routes", async () => {
    const setCookie = await codeCookieUnder("/acme/auth");
    expect(setCookie).toMatch(/; Path=\/acme\/auth(;|$)/);
  });

  it.each([
    [
      "a Domain attribute (the sealed code cookie sent to every sibling sub-domain)",
      "/x;Domain=127.0.0.1;/auth",
      "domain",
    ],
    ["a Max-Age=0 (the code cookie deleted as it is set)", "/x;Max-Age=0;/auth", "max-age"],
  ])("a tenant segment cannot inject %s", async (_what, base, attribute) => {
    const setCookie = await codeCookieUnder(base);
    expect(setCookie, "the code cookie is set").toBeTruthy();
    const names = attributes(setCookie as string);
    // One Path and exactly the attributes Latchkey writes: no Domain, one Max-Age.
    expect(names.filter((n) => n === attribute).length, setCookie).toBe(attribute === "max-age" ? 1 : 0);
    expect(names.filter((n) => n === "path").length, setCookie).toBe(1);
  });
});
