/**
 * Logs cannot be forged (OWASP ASVS V7.3.1, CWE-117): whatever a provider or a client writes, the
 * default logger prints it on the line it belongs to. The provider here is the real test OpenID
 * Provider; its genuine `access_denied` answer is altered the way an attacker alters a callback
 * URL (anyone can send one), and everything the default logger prints is captured.
 */
import { format } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { Auth, type AuthConfig } from "../../src/index.js";
import { createLogger, escapeForLog } from "../../src/lib/base/logger.js";
import { MemoryAdapter } from "../../src/memory-adapter.js";
import { OIDC } from "../../src/providers/generic-oidc.js";
import { call, makeConfig } from "../helpers.js";
import { Browser } from "../oauth/support/browser.js";
import { locationOf, loginAtProvider, SECRET, startSignIn } from "../oauth/support/flow.js";
import { startOP, type TestOP } from "../oauth/support/op.js";

const APP = "http://localhost:3000";
// Every way to end a line (or make a terminal show another one) that a value may carry.
const LINE_BREAKS = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/;

let op: TestOP;
beforeAll(async () => {
  op = await startOP([
    { client_id: "latchkey", client_secret: "latchkey-secret", redirect_uris: [`${APP}/auth/callback/op`] },
  ]);
});
afterAll(() => op?.close());

/** Everything the console receives while `work` runs, one entry per console call. */
async function printed(work: () => Promise<unknown>): Promise<string[]> {
  const out: string[] = [];
  const record = (...args: unknown[]) => void out.push(format(...args));
  for (const method of ["error", "warn", "log", "info", "debug"] as const) {
    vi.spyOn(console, method).mockImplementation(record);
  }
  await work();
  return out;
}
afterEach(() => vi.restoreAllMocks());

const forged = [
  "\n[ERROR] forged line",
  "\r\n[latchkey][error] AccessDenied: forged",
  "x\r[ERROR] carriage return",
  "x\u2028[ERROR] line separator\u2029[ERROR] paragraph separator",
  "x\u0085[ERROR] next line\u000b\u000c",
  "x\u202e[ERROR] right-to-left override\u0000\u001b[31mred",
];

describe("logs cannot be forged: values from outside are escaped by the default logger", () => {
  it.each(forged)("a provider error_description %j produces exactly one log line", async (description) => {
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true, // no `logger`: the default one prints
      providers: [
        OIDC({ id: "op", name: "OP", issuer: op.issuer, clientId: "latchkey", clientSecret: "latchkey-secret" }),
      ],
    };
    const browser = new Browser({ [APP]: (r) => Auth(r, config) });
    const start = await startSignIn(browser, APP, "op", { query: { login_hint: "deny" } });
    const answer = await loginAtProvider(browser, locationOf(start), APP);
    const url = new URL(answer.url);
    expect(url.searchParams.get("error")).toBe("access_denied"); // the provider's genuine answer
    url.searchParams.set("error_description", description);
    const lines = (await printed(() => browser.get(url.href))).flatMap((entry) => entry.split(LINE_BREAKS));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[latchkey\]\[error\] OAuthCallbackError: .*access_denied/);
    expect(lines[0]).toContain(escapeForLog(description));
    expect(lines[0]).not.toMatch(/[\p{Cc}\u2028\u2029\u202e]/u);
  });

  it("the same holds for an error's cause and its stack, and for debug lines", async () => {
    const config = makeConfig({
      debug: true,
      session: { strategy: "jwt" },
      adapter: MemoryAdapter(),
      providers: [
        {
          id: "mail",
          name: "Mail",
          type: "email",
          // A mail relay's refusal quotes what it was sent, newlines and all.
          sendVerificationRequest: () => {
            throw new Error("relay said: 550\n[ERROR] forged by the relay");
          },
        } as never,
      ],
    });
    const out = await printed(async () => {
      const csrf = await call(config, "/auth/csrf");
      const cookie = csrf.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; ");
      const { csrfToken } = (await csrf.json()) as { csrfToken: string };
      await call(config, "/auth/signin/mail", {
        headers: { cookie },
        form: { csrfToken, email: "ada@example.com" },
      });
      // What a debug line quotes (a request's own text, say) is escaped the same way.
      createLogger(undefined, true).debug("bad request body: x\n[ERROR] forged by a body", { q: "a\u2028[ERROR] b" });
    });
    const lines = out.flatMap((entry) => entry.split("\n"));
    // Each printed line is Latchkey's own: a tagged line or a stack frame, never a forged one.
    for (const line of lines) expect(line).toMatch(/^(\[latchkey\]\[(error|cause|warn\]\[[\w-]+|debug)\] |\s+at )/);
    expect(lines.some((l) => l.includes("relay said: 550\\n[ERROR] forged by the relay"))).toBe(true);
    expect(lines).toContain(
      "[latchkey][debug] bad request body: x\\n[ERROR] forged by a body { q: 'a\\u2028[ERROR] b' }",
    );
    expect(lines.some((l) => /^\[ERROR\]/.test(l))).toBe(false);
  });
});
