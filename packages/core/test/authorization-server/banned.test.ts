/**
 * A banned user against the authorization server, as the attacker who owns the account: the ban
 * ends her browser sessions, but what the server gave her clients before it (a refresh token, a
 * code not yet exchanged, a device already approved) must not mint a single token after it. An
 * admin store that cannot be read refuses too (503), never skipping the ban.
 */
import { describe, expect, it } from "vitest";
import { Admin, type AdminStore, MemoryAdminStore } from "../../src/admin.js";
import {
  type App,
  codeFor,
  consentFields,
  errorOf,
  exchange,
  makeApp,
  publicClient,
  send,
  signedInBrowser,
  tokensFor,
} from "./support.js";

const OWNER = "u-owner";
const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

/** The server's application with an admin store in its configuration, and the owner's admin tools. */
async function bannableApp(store: AdminStore = MemoryAdminStore()) {
  const app = await makeApp({}, { admin: { store } });
  const admin = Admin(app.config, { admins: { userIds: [OWNER] } });
  return { app, admin, store };
}

const refresh = (app: App, clientId: string, token: string) =>
  send(app, "/oauth/token", { form: { grant_type: "refresh_token", refresh_token: token, client_id: clientId } });

describe("a banned user's clients at the authorization server", () => {
  it("rule: a refresh token issued before the ban gives no token after it, nor after the unban (its family ended)", async () => {
    const { app, admin } = await bannableApp();
    const client = await publicClient(app);
    const first = await tokensFor(app, client.clientId, await signedInBrowser(app));
    const beforeBan = await refresh(app, client.clientId, first.refresh_token ?? "");
    expect(beforeBan.status).toBe(200);
    const rotated = (await beforeBan.json()) as Record<string, string>;

    expect((await admin.ban(OWNER, "u1", { reason: "abuse" })).ok).toBe(true);
    const banned = await refresh(app, client.clientId, rotated.refresh_token ?? "");
    expect(banned.status).toBe(400);
    expect(await errorOf(banned)).toBe("invalid_grant");

    expect((await admin.unban(OWNER, "u1")).ok).toBe(true);
    const afterUnban = await refresh(app, client.clientId, rotated.refresh_token ?? "");
    expect(await errorOf(afterUnban)).toBe("invalid_grant");
  });

  it("rule: a code issued before the ban is not exchanged after it", async () => {
    const { app, admin } = await bannableApp();
    const client = await publicClient(app);
    const { code, verifier } = await codeFor(app, client.clientId, await signedInBrowser(app));
    expect((await admin.ban(OWNER, "u1")).ok).toBe(true);
    const response = await exchange(app, client.clientId, code, verifier);
    expect(response.status).toBe(400);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body.error).toBe("invalid_grant");
    expect(body.access_token).toBeUndefined();
  });

  it("rule: a device approved before the ban gets no token when it polls after it", async () => {
    const { app, admin } = await bannableApp();
    const client = await publicClient(app, {
      name: "Reports CLI",
      redirectUris: [],
      grantTypes: [DEVICE_GRANT, "refresh_token"],
      scopes: ["openid", "reports:read", "offline_access"],
    });
    const started = await send(app, "/oauth/device_authorization", {
      form: { client_id: client.clientId, scope: "openid reports:read" },
    });
    const { device_code: deviceCode, user_code: userCode } = (await started.json()) as Record<string, string>;
    const jar = await signedInBrowser(app);
    const page = await send(app, "/oauth/device", { jar });
    const csrfToken = /name="csrfToken" value="([^"]+)"/.exec(await page.text())?.[1] ?? "";
    const consent = await send(app, "/oauth/device", { jar, form: { csrfToken, user_code: userCode ?? "" } });
    const approved = await send(app, "/oauth/consent", {
      jar,
      form: { ...consentFields(await consent.text()), decision: "allow" },
    });
    expect(approved.status).toBe(200);

    expect((await admin.ban(OWNER, "u1")).ok).toBe(true);
    const poll = await send(app, "/oauth/token", {
      form: { grant_type: DEVICE_GRANT, device_code: deviceCode ?? "", client_id: client.clientId },
    });
    expect(poll.status).toBe(400);
    expect(await errorOf(poll)).toBe("invalid_grant");
  });

  it("rule: when the admin store cannot be read, a refresh is answered 503 and no token is issued", async () => {
    const memory = MemoryAdminStore();
    let down = false;
    const store: AdminStore = {
      ...memory,
      getBan: (userId, now) => (down ? Promise.reject(new Error("admin store down")) : memory.getBan(userId, now)),
    };
    const { app } = await bannableApp(store);
    const client = await publicClient(app);
    const first = await tokensFor(app, client.clientId, await signedInBrowser(app));
    down = true;
    const response = await refresh(app, client.clientId, first.refresh_token ?? "");
    expect(response.status).toBe(503);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body.error).toBe("temporarily_unavailable");
    expect(body.access_token).toBeUndefined();
    expect(app.logged.errors.map((e) => e.message).join("\n")).toContain("admin store");
    down = false;
    expect((await refresh(app, client.clientId, first.refresh_token ?? "")).status).toBe(200);
  });
});
