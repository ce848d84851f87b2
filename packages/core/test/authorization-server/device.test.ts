/**
 * The device authorization grant (RFC 8628): a CLI asks for codes and polls; the user types the
 * code under a signed-in session and consents; the poll gets the tokens once.
 */
import { describe, expect, it } from "vitest";
import {
  type App,
  CookieJar,
  consentFields,
  errorOf,
  makeApp,
  publicClient,
  send,
  signedInBrowser,
} from "./support.js";

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

async function cli(app: App) {
  return publicClient(app, {
    name: "Reports CLI",
    redirectUris: [],
    grantTypes: [DEVICE_GRANT, "refresh_token"],
    scopes: ["openid", "reports:read", "offline_access"],
  });
}

async function startDevice(app: App, clientId: string) {
  const response = await send(app, "/oauth/device_authorization", {
    form: { client_id: clientId, scope: "openid reports:read" },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, string | number>;
}

const poll = (app: App, clientId: string, deviceCode: string) =>
  send(app, "/oauth/token", { form: { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: clientId } });

/** The user types `userCode` on the device page and answers the consent. */
async function enterCode(app: App, jar: CookieJar, userCode: string, decision = "allow") {
  const page = await send(app, "/oauth/device", { jar });
  const csrfToken = /name="csrfToken" value="([^"]+)"/.exec(await page.text())?.[1] ?? "";
  const consent = await send(app, "/oauth/device", { jar, form: { csrfToken, user_code: userCode } });
  expect(consent.status).toBe(200);
  const fields = consentFields(await consent.text());
  return send(app, "/oauth/consent", { jar, form: { ...fields, decision } });
}

describe("device authorization grant", () => {
  it("gives the device its tokens once the user typed the code and allowed it", async () => {
    const app = await makeApp({ signing: { algorithms: ["ES256"] } });
    const client = await cli(app);
    const started = await startDevice(app, client.clientId);
    expect(started.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(started.verification_uri).toBe("http://localhost:3000/oauth/device");
    expect(started.interval).toBe(5);
    const deviceCode = String(started.device_code);
    expect(await errorOf(await poll(app, client.clientId, deviceCode))).toBe("authorization_pending");

    const jar = await signedInBrowser(app);
    const done = await enterCode(app, jar, String(started.user_code).toLowerCase().replace("-", " "));
    expect(done.status).toBe(200);
    expect(await done.text()).toContain("Device connected");

    const tokens = await poll(app, client.clientId, deviceCode);
    expect(tokens.status).toBe(200);
    const body = (await tokens.json()) as Record<string, string>;
    expect(body.scope).toBe("openid reports:read");
    expect(typeof body.id_token).toBe("string");
    expect(await errorOf(await poll(app, client.clientId, deviceCode))).toBe("invalid_grant");
  });

  it("tells a device that polls too fast to slow down, and keeps the longer interval", async () => {
    const app = await makeApp({ signing: { algorithms: ["ES256"] } });
    const client = await cli(app);
    const deviceCode = String((await startDevice(app, client.clientId)).device_code);
    expect(await errorOf(await poll(app, client.clientId, deviceCode))).toBe("authorization_pending");
    const fast = await poll(app, client.clientId, deviceCode);
    expect(await errorOf(fast)).toBe("slow_down");
    const [record] = await app.store.find("device", { clientId: client.clientId });
    expect(record?.data.interval).toBe(10);
  });

  it("answers access_denied when the user says no", async () => {
    const app = await makeApp({ signing: { algorithms: ["ES256"] } });
    const client = await cli(app);
    const started = await startDevice(app, client.clientId);
    const jar = await signedInBrowser(app);
    await enterCode(app, jar, String(started.user_code), "deny");
    expect(await errorOf(await poll(app, client.clientId, String(started.device_code)))).toBe("access_denied");
  });

  it("sends a signed-out user to sign in first, keeping the code of the link", async () => {
    const app = await makeApp({ signing: { algorithms: ["ES256"] } });
    const response = await send(app, "/oauth/device?user_code=BCDF-GHJK", { jar: new CookieJar() });
    expect(response.status).toBe(302);
    const signIn = new URL(response.headers.get("location") ?? "");
    expect(signIn.pathname).toBe("/auth/signin");
    expect(signIn.searchParams.get("callbackUrl")).toBe("http://localhost:3000/oauth/device?user_code=BCDF-GHJK");
  });

  it("stops a user who guesses codes after ten tries", async () => {
    const app = await makeApp({ signing: { algorithms: ["ES256"] } });
    const jar = await signedInBrowser(app);
    const page = await send(app, "/oauth/device", { jar });
    const csrfToken = /name="csrfToken" value="([^"]+)"/.exec(await page.text())?.[1] ?? "";
    const texts: string[] = [];
    for (let i = 0; i < 11; i++)
      texts.push(await (await send(app, "/oauth/device", { jar, form: { csrfToken, user_code: "BCDF-GHJK" } })).text());
    expect(texts.slice(0, 10).every((t) => t.includes("That code is not valid"))).toBe(true);
    expect(texts[10]).toContain("Too many codes were tried");
  });

  it("refuses the device grant to a client not registered for it", async () => {
    const app = await makeApp({ signing: { algorithms: ["ES256"] } });
    const client = await publicClient(app);
    const response = await send(app, "/oauth/device_authorization", { form: { client_id: client.clientId } });
    expect(await errorOf(response)).toBe("unauthorized_client");
  });

  it("gives the tokens to one poll when 30 arrive at once after the approval", async () => {
    const app = await makeApp({ signing: { algorithms: ["ES256"] } });
    const client = await cli(app);
    const started = await startDevice(app, client.clientId);
    await enterCode(app, await signedInBrowser(app), String(started.user_code));
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => poll(app, client.clientId, String(started.device_code))),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
  });
});
