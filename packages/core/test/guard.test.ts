/** `guard`, the decision of every framework's `requireAuth`: pass, 401/403 JSON, or a redirect. */
import { describe, expect, it } from "vitest";
import { guard } from "../src/internal.js";
import { encode } from "../src/jwt.js";

const secret = "guard-secret-0123456789abcdefghijklmnop";
const config = { secret, trustHost: true, providers: [], logger: { error() {}, warn() {}, debug() {} } };
const salt = "authjs.session-token";

async function request(accept: string, amr?: string[]) {
  const token = amr && (await encode({ token: { sub: "u1", name: "Ada", amr }, secret, salt }));
  const cookieHeader = token ? `${salt}=${token}` : undefined;
  return { protocol: "http", host: "app.test", cookieHeader, accept, url: "/pay?x=1" };
}

describe("guard", () => {
  it("answers a signed-out browser with the sign-in page, any other client with 401 JSON", async () => {
    const check = guard(config, { signInPage: "/login" });
    expect(await check(await request("text/html"))).toEqual({
      response: { redirect: "/login?callbackUrl=%2Fpay%3Fx%3D1" },
    });
    expect(await check(await request("application/json"))).toMatchObject({
      response: { status: 401, body: { error: "SessionRequired" } },
    });
  });
  it("passes a session with the factors demanded, and refuses one without them", async () => {
    const check = guard(config, { factors: 2, factorPage: "/factor" });
    expect((await check(await request("*/*", ["pwd", "otp"]))).session?.user?.name).toBe("Ada");
    expect(await check(await request("text/html", ["pwd"]))).toEqual({
      response: { redirect: "/factor?callbackUrl=%2Fpay%3Fx%3D1" },
    });
    expect(await check(await request("*/*", ["pwd"]))).toMatchObject({
      response: { status: 403, body: { error: "SecondFactorRequired" } },
    });
    expect((await guard(config, { amr: ["otp"] })(await request("*/*", ["pwd"]))).response?.status).toBe(403);
  });
  it("refuses a factor count that is not an integer >= 1 when the guard is made", () => {
    for (const factors of [0, 1.5, Number.NaN]) expect(() => guard(config, { factors })).toThrow(TypeError);
  });
});
