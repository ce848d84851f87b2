// The HTTP e-mail services, each against a local node:http server that checks the request its
// API expects. `customFetch` sends the provider's real URL to the local server, after the test has
// checked that URL.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuthConfig, customFetch, setEnvDefaults } from "../../src/index.js";
import { createMemoryStore, MemoryAdapter, type MemoryStore } from "../../src/memory-adapter.js";
import type { EmailConfig } from "../../src/providers/email.js";
import ForwardEmail from "../../src/providers/forwardemail.js";
import Loops from "../../src/providers/loops.js";
import Mailgun from "../../src/providers/mailgun.js";
import Postmark from "../../src/providers/postmark.js";
import Resend from "../../src/providers/resend.js";
import SendGrid from "../../src/providers/sendgrid.js";
import { CookieJar, linkIn, ORIGIN, openLink, requestLink, SECRET } from "./helpers.js";

interface Captured {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
}

let server: Server;
let base: string;
const captured: Captured[] = [];
/** What the fake service answers next: status and body. */
let reply: { status: number; body: string } = { status: 200, body: "{}" };

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      captured.push({
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks),
      });
      res.writeHead(reply.status, { "content-type": "application/json" });
      res.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A fetch that insists on the service's documented URL, then calls the local server instead. */
function towards(expectedUrl: string): typeof fetch {
  return (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (url !== expectedUrl) throw new Error(`unexpected URL ${url}, wanted ${expectedUrl}`);
    const target = new URL(url);
    return fetch(`${base}${target.pathname}${target.search}`, init);
  };
}

function setup(provider: EmailConfig): { config: AuthConfig; store: MemoryStore } {
  const store = createMemoryStore();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    trustedOrigins: [ORIGIN],
    adapter: MemoryAdapter(store),
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    providers: [provider],
  };
  return { config, store };
}

async function formOf(request: Captured): Promise<FormData> {
  return new Response(new Uint8Array(request.body), {
    headers: { "content-type": String(request.headers["content-type"]) },
  }).formData();
}

/** Requests a link, checks the single API call with `check`, then follows the link to a session. */
async function roundTrip(provider: EmailConfig, check: (request: Captured) => Promise<{ text: string; html: string }>) {
  captured.length = 0;
  const { config, store } = setup(provider);
  const response = await requestLink(config, new CookieJar(), provider.id, "Ada@Example.com");
  expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/verify-request?provider=${provider.id}&type=email`);
  expect(captured).toHaveLength(1);
  const request = captured[0] as Captured;
  expect(request.method).toBe("POST");
  const { text, html } = await check(request);
  const link = linkIn(text);
  expect(html).toContain(link.replace(/&/g, "&amp;"));
  const click = await openLink(config, new CookieJar(), link);
  expect(click.headers.get("location")).toBe(`${ORIGIN}/dashboard`);
  expect(store.sessions.size).toBe(1);
}

describe("HTTP e-mail providers", () => {
  it("Resend: POST /emails, Bearer key, JSON with from, to, subject, html, text", async () => {
    reply = { status: 200, body: '{"id":"49a3999c-0ce1-4ea6-ab68-afcd6dc2e794"}' };
    const provider = Resend({
      apiKey: "re_test_key",
      from: "Acme <no-reply@acme.test>",
      [customFetch]: towards("https://api.resend.com/emails"),
    });
    await roundTrip(provider, async (request) => {
      expect(request.path).toBe("/emails");
      expect(request.headers.authorization).toBe("Bearer re_test_key");
      expect(request.headers["content-type"]).toBe("application/json");
      const body = JSON.parse(request.body.toString());
      expect(body.from).toBe("Acme <no-reply@acme.test>");
      expect(body.to).toEqual(["ada@example.com"]);
      expect(body.subject).toBe("Sign in to app.test:3000");
      return { text: body.text, html: body.html };
    });
  });

  it("SendGrid: POST /v3/mail/send, Bearer key, personalizations and text before HTML", async () => {
    reply = { status: 202, body: "" };
    const provider = SendGrid({
      apiKey: "SG.test",
      from: "Acme <no-reply@acme.test>",
      [customFetch]: towards("https://api.sendgrid.com/v3/mail/send"),
    });
    await roundTrip(provider, async (request) => {
      expect(request.path).toBe("/v3/mail/send");
      expect(request.headers.authorization).toBe("Bearer SG.test");
      const body = JSON.parse(request.body.toString());
      expect(body.personalizations).toEqual([{ to: [{ email: "ada@example.com" }] }]);
      expect(body.from).toEqual({ email: "no-reply@acme.test", name: "Acme" });
      expect(body.content.map((c: { type: string }) => c.type)).toEqual(["text/plain", "text/html"]);
      return { text: body.content[0].value, html: body.content[1].value };
    });
  });

  it("Postmark: POST /email, server token header, outbound stream", async () => {
    reply = { status: 200, body: '{"ErrorCode":0,"Message":"OK","MessageID":"b7bc2f4a"}' };
    const provider = Postmark({
      apiKey: "pm-token",
      from: "no-reply@acme.test",
      [customFetch]: towards("https://api.postmarkapp.com/email"),
    });
    await roundTrip(provider, async (request) => {
      expect(request.path).toBe("/email");
      expect(request.headers["x-postmark-server-token"]).toBe("pm-token");
      expect(request.headers.accept).toBe("application/json");
      const body = JSON.parse(request.body.toString());
      expect(body).toMatchObject({ From: "no-reply@acme.test", To: "ada@example.com", MessageStream: "outbound" });
      return { text: body.TextBody, html: body.HtmlBody };
    });
  });

  it("Mailgun: POST /v3/<domain>/messages (EU host), Basic api:key, multipart form", async () => {
    reply = { status: 200, body: '{"id":"<x@mg.acme.test>","message":"Queued. Thank you."}' };
    const provider = Mailgun({
      apiKey: "mg-key",
      from: "Acme <no-reply@mg.acme.test>",
      region: "eu",
      [customFetch]: towards("https://api.eu.mailgun.net/v3/mg.acme.test/messages"),
    });
    await roundTrip(provider, async (request) => {
      expect(request.path).toBe("/v3/mg.acme.test/messages");
      expect(request.headers.authorization).toBe(`Basic ${Buffer.from("api:mg-key").toString("base64")}`);
      expect(String(request.headers["content-type"])).toMatch(/^multipart\/form-data; boundary=/);
      const form = await formOf(request);
      expect(form.get("from")).toBe("Acme <no-reply@mg.acme.test>");
      expect(form.getAll("to")).toEqual(["ada@example.com"]);
      return { text: String(form.get("text")), html: String(form.get("html")) };
    });
  });

  it("Forward Email: POST /v1/emails, Basic <token>: with no password, JSON with from, to, subject, html, text", async () => {
    reply = { status: 200, body: '{"id":"66d6f1c2","status":"queued"}' };
    const provider = ForwardEmail({
      apiKey: "fe-token",
      from: "Acme <no-reply@acme.test>",
      [customFetch]: towards("https://api.forwardemail.net/v1/emails"),
    });
    await roundTrip(provider, async (request) => {
      expect(request.path).toBe("/v1/emails");
      expect(request.headers.authorization).toBe(`Basic ${Buffer.from("fe-token:").toString("base64")}`);
      const body = JSON.parse(request.body.toString());
      expect(body).toMatchObject({
        from: "Acme <no-reply@acme.test>",
        to: "ada@example.com",
        subject: "Sign in to app.test:3000",
      });
      return { text: body.text, html: body.html };
    });
  });

  it("Loops: POST /api/v1/transactional, Bearer key, the template id and the link as the data variable url", async () => {
    reply = { status: 200, body: '{"success":true}' };
    captured.length = 0;
    const { config, store } = setup(
      Loops({
        apiKey: "loops-key",
        transactionalId: "clfq6dinn000yl70fgwwyp82l",
        [customFetch]: towards("https://app.loops.so/api/v1/transactional"),
      }),
    );
    const response = await requestLink(config, new CookieJar(), "loops", "Ada@Example.com");
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/verify-request?provider=loops&type=email`);
    const request = captured[0] as Captured;
    expect(request.headers.authorization).toBe("Bearer loops-key");
    const body = JSON.parse(request.body.toString()) as {
      transactionalId: string;
      email: string;
      dataVariables: { url: string };
    };
    expect(body.transactionalId).toBe("clfq6dinn000yl70fgwwyp82l");
    expect(body.email).toBe("ada@example.com");
    // The template shows the link: following it signs in.
    const click = await openLink(config, new CookieJar(), body.dataVariables.url);
    expect(click.headers.get("location")).toBe(`${ORIGIN}/dashboard`);
    expect(store.sessions.size).toBe(1);
  });

  it("Loops without a transactionalId refuses to send, naming the option", async () => {
    captured.length = 0;
    const errors: Error[] = [];
    const { config } = setup(
      Loops({ apiKey: "loops-key", [customFetch]: towards("https://app.loops.so/api/v1/transactional") }),
    );
    config.logger = { error: (e) => errors.push(e), warn: () => {}, debug: () => {} };
    const response = await requestLink(config, new CookieJar(), "loops", "ada@example.com");
    expect(response.headers.get("location")).toMatch(/error=EmailSignin/);
    expect(captured).toHaveLength(0);
    expect(
      String(errors[0]?.cause && (errors[0].cause as { err?: Error }).err?.message) + String(errors[0]?.message),
    ).toMatch(/transactionalId/);
  });

  it("takes the API key from AUTH_<ID>_KEY", async () => {
    reply = { status: 200, body: '{"id":"1"}' };
    captured.length = 0;
    const { config } = setup(
      Resend({ from: "no-reply@acme.test", [customFetch]: towards("https://api.resend.com/emails") }),
    );
    setEnvDefaults({ AUTH_RESEND_KEY: "re_from_env" }, config);
    await requestLink(config, new CookieJar(), "resend", "ada@example.com");
    expect(captured[0]?.headers.authorization).toBe("Bearer re_from_env");
  });

  it.each([
    [
      "Resend",
      () => Resend({ apiKey: "k", from: "a@acme.test", [customFetch]: towards("https://api.resend.com/emails") }),
      { status: 422, body: '{"message":"invalid from"}' },
    ],
    [
      "SendGrid",
      () =>
        SendGrid({ apiKey: "k", from: "a@acme.test", [customFetch]: towards("https://api.sendgrid.com/v3/mail/send") }),
      { status: 401, body: '{"errors":[]}' },
    ],
    [
      "Postmark (HTTP 422)",
      () => Postmark({ apiKey: "k", from: "a@acme.test", [customFetch]: towards("https://api.postmarkapp.com/email") }),
      { status: 422, body: '{"ErrorCode":406,"Message":"Inactive recipient"}' },
    ],
    [
      "Postmark (ErrorCode in a 200)",
      () => Postmark({ apiKey: "k", from: "a@acme.test", [customFetch]: towards("https://api.postmarkapp.com/email") }),
      { status: 200, body: '{"ErrorCode":300,"Message":"Invalid email request"}' },
    ],
    [
      "Mailgun",
      () =>
        Mailgun({
          apiKey: "k",
          from: "a@acme.test",
          [customFetch]: towards("https://api.mailgun.net/v3/acme.test/messages"),
        }),
      { status: 400, body: '{"message":"to parameter is not a valid address"}' },
    ],
  ])("%s: a refusal is EmailSignin and leaves no token", async (_name, make, answer) => {
    reply = answer;
    captured.length = 0;
    const { config, store } = setup(make());
    const response = await requestLink(config, new CookieJar(), make().id, "ada@example.com");
    expect(captured).toHaveLength(1);
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=EmailSignin`);
    expect(store.verificationTokens.size).toBe(0);
  });

  it("a missing apiKey or from is EmailSignin with the option named in the log", async () => {
    const errors: Error[] = [];
    const { config } = setup(Resend({ from: "a@acme.test" }));
    config.logger = { error: (e) => void errors.push(e), warn: () => {}, debug: () => {} };
    const response = await requestLink(config, new CookieJar(), "resend", "ada@example.com");
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=EmailSignin`);
    expect((errors[0]?.cause as { err?: Error })?.err?.message).toMatch(/AUTH_RESEND_KEY/);
  });
});
