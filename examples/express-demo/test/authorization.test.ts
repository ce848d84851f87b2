/**
 * The built demo as an authorization server (issue 37.8), over HTTP as `npm start` runs it:
 * "Sign in with the Latchkey demo" on the second local app (Reports, a Latchkey relying party),
 * the command-line tool signing in with the device grant and calling the demo's API, and the
 * MCP TypeScript SDK's client calling the demo's MCP server after its own OAuth flow.
 */
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryOAuthProvider } from "../../../packages/express/test/mcp-client.js";
import { deviceSignIn } from "../dist/cli.js";
import { type DemoProcess, startDemoProcess } from "./support.js";

let demo: DemoProcess;
let partner = "";
beforeAll(async () => {
  demo = await startDemoProcess();
  partner = /sign in with the demo: a second app at (http:\/\/\S+)/.exec(demo.output())?.[1] ?? "";
});
afterAll(() => demo?.stop());

/** A browser: cookies kept per host, redirects not followed. */
class Browser {
  readonly jars = new Map<string, Map<string, string>>();
  async fetch(url: string, form?: Record<string, string>): Promise<Response> {
    const host = new URL(url).host;
    const jar = this.jars.get(host) ?? new Map<string, string>();
    this.jars.set(host, jar);
    const headers: Record<string, string> = {};
    if (jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    if (form) headers["content-type"] = "application/x-www-form-urlencoded";
    const response = await fetch(url, {
      method: form ? "POST" : "GET",
      headers,
      redirect: "manual",
      ...(form && { body: new URLSearchParams(form).toString() }),
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ""] = cookie.split(";");
      const eq = pair.indexOf("=");
      const value = pair.slice(eq + 1);
      if (value === "" || /max-age=0(;|$)/i.test(cookie)) jar.delete(pair.slice(0, eq));
      else jar.set(pair.slice(0, eq), value);
    }
    return response;
  }

  /** Signs in on the demo with its password account. */
  async signIn(callbackUrl: string): Promise<Response> {
    const { csrfToken } = (await (await this.fetch(`${demo.url}/auth/csrf`)).json()) as { csrfToken: string };
    return this.fetch(`${demo.url}/auth/callback/credentials`, {
      csrfToken,
      email: "demo@example.com",
      password: "demo-password",
      callbackUrl,
    });
  }

  /**
   * Follows redirects from `response` until one leaves for `until` (answered), signing in on the
   * demo's page and allowing on its consent page when they come.
   */
  async walk(response: Response, until: (url: URL) => boolean): Promise<URL> {
    let current = response;
    for (let step = 0; step < 12; step++) {
      const location = current.headers.get("location");
      if (location) {
        const next = new URL(location, current.url);
        if (until(next)) return next;
        if (next.pathname === "/auth/signin" && next.host === new URL(demo.url).host) {
          current = await this.signIn(next.searchParams.get("callbackUrl") ?? "/");
          continue;
        }
        current = await this.fetch(next.href);
        continue;
      }
      const page = await current.text();
      const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1] ?? "";
      if (!page.includes('name="interaction"'))
        throw new Error(`Unexpected page ${current.url}: ${page.slice(0, 300)}`);
      current = await this.fetch(`${demo.url}/oauth/consent`, {
        interaction: field("interaction"),
        csrfToken: field("csrfToken"),
        decision: "allow",
      });
    }
    throw new Error("The walk went on too long");
  }
}

describe("the demo as an authorization server", () => {
  it("signs a user in to the second app: Reports sends the browser to the demo, which sends it back signed in", async () => {
    expect(partner).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const browser = new Browser();
    expect(await (await browser.fetch(`${partner}/`)).text()).toContain("Not signed in to Reports");
    const { csrfToken } = (await (await browser.fetch(`${partner}/auth/csrf`)).json()) as { csrfToken: string };
    const start = await browser.fetch(`${partner}/auth/signin/latchkey-demo`, {
      csrfToken,
      callbackUrl: `${partner}/`,
    });
    const authorize = new URL(start.headers.get("location") ?? "");
    expect(authorize.origin).toBe(demo.url);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    const callback = await browser.walk(start, (url) => url.origin === partner);
    expect(callback.pathname).toBe("/auth/callback/latchkey-demo");
    expect(callback.searchParams.get("iss")).toBe(demo.url);
    const called = await browser.fetch(callback.href);
    const landed = await browser.walk(called, (url) => url.href === `${partner}/`);
    expect(landed.href).toBe(`${partner}/`);
    const home = await (await browser.fetch(`${partner}/`)).text();
    expect(home).toContain("Signed in to Reports as <strong>Demo User</strong> (demo@example.com)");
  });

  it("signs the command-line tool in with a device code typed by the signed-in user, and its token reads the API", async () => {
    const browser = new Browser();
    await browser.signIn("/");
    let approve: () => void = () => {};
    const approved = new Promise<void>((resolve) => {
      approve = resolve;
    });
    const signedIn = deviceSignIn(
      demo.url,
      (code) => {
        void (async () => {
          const page = await (await browser.fetch(code.verificationUriComplete)).text();
          const csrf = /name="csrfToken" value="([^"]*)"/.exec(page)?.[1] ?? "";
          const typed = await browser.fetch(`${demo.url}/oauth/device`, { csrfToken: csrf, user_code: code.userCode });
          const consent = await typed.text();
          const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(consent)?.[1] ?? "";
          const answer = await browser.fetch(`${demo.url}/oauth/consent`, {
            interaction: field("interaction"),
            csrfToken: field("csrfToken"),
            decision: "allow",
          });
          expect(answer.status).toBeLessThan(400);
          approve();
        })();
      },
      // The first poll waits for the user's approval (the event), not for the clock.
      () => approved,
    );
    const { me, tokens } = await signedIn;
    expect(me).toMatchObject({ name: "Demo User", email: "demo@example.com" });
    expect(typeof tokens.refresh_token).toBe("string");
    const refused = await fetch(`${demo.url}/api/me`, { headers: { authorization: "Bearer not-a-token-0000000000" } });
    expect(refused.status).toBe(401);
  });

  it("lets the MCP SDK's client register, get the user's consent and call the demo's MCP server", async () => {
    const REDIRECT = "http://127.0.0.1:9/callback";
    const provider = new MemoryOAuthProvider(REDIRECT);
    const url = new URL(`${demo.url}/mcp`);
    await expect(
      new Client({ name: "t", version: "1" }).connect(
        new StreamableHTTPClientTransport(url, { authProvider: provider }),
      ),
    ).rejects.toThrow(UnauthorizedError);
    const browser = new Browser();
    const back = await browser.walk(await browser.fetch(provider.authorizationUrl?.href ?? ""), (u) =>
      u.href.startsWith(REDIRECT),
    );
    await new StreamableHTTPClientTransport(url, { authProvider: provider }).finishAuth(
      back.searchParams.get("code") ?? "",
    );
    const client = new Client({ name: "t", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    const result = await client.callTool({ name: "whoami", arguments: {} });
    expect((result.content as { text: string }[])[0]?.text).toMatch(/^Demo User <demo@example\.com> \(/);
    await client.close();
  });
});
