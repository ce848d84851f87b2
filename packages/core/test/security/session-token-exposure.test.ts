/**
 * The session token never reaches JavaScript (issue 22, item 9). Under database sessions the
 * session cookie's value is the bearer credential, kept `HttpOnly` so that no script reads it.
 * Auth.js hands the adapter's record, token included, to the `session` callback, and the
 * callback most applications write (`{ ...session, user: ... }`) puts it in `GET /auth/session`,
 * which any script on the page may fetch. Latchkey hands the callback the record without its
 * token, and removes the token from whatever the callback returns.
 */
import { describe, expect, it, vi } from "vitest";
import type { Adapter, AdapterUser } from "../../src/adapters.js";
import { sessionReadOf } from "../../src/internal.js";
import { MemoryAdapter } from "../../src/memory-adapter.js";
import type { AuthConfig } from "../../src/types.js";
import { CookieJar, call, csrfToken, makeConfig, recordingLogger } from "../helpers.js";

const SESSION = "authjs.session-token";

/** A stored user with a database session under a 64-hex token (what Latchkey mints); its jar. */
async function seeded(adapter: Adapter) {
  const user = (await adapter.createUser?.({
    id: crypto.randomUUID(),
    name: "Grace",
    email: "grace@example.com",
    emailVerified: null,
    image: null,
  })) as AdapterUser;
  const sessionToken = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");
  await adapter.createSession?.({
    sessionToken,
    userId: user.id,
    expires: new Date(Date.now() + 86_400_000),
    device: "Firefox on Linux",
  });
  const jar = new CookieJar();
  jar.cookies.set(SESSION, sessionToken);
  return { user, sessionToken, jar };
}

function config(adapter: Adapter, extra: Partial<AuthConfig>): AuthConfig {
  return makeConfig({ adapter, providers: [], session: { strategy: "database" }, ...extra });
}

describe("the session token never reaches JavaScript (database sessions)", () => {
  it("rule: a session callback that spreads the record answers no session token (GET and POST /session, getSession, the session event)", async () => {
    const adapter = MemoryAdapter();
    const { user, sessionToken, jar } = await seeded(adapter);
    const seen: Record<string, unknown>[] = [];
    const sessionEvent = vi.fn();
    const log = recordingLogger();
    const c = config(adapter, {
      logger: log.logger,
      events: { session: sessionEvent },
      callbacks: {
        // The shape Auth.js's documentation and most applications use.
        session: ({ session, user }) => {
          seen.push(session as unknown as Record<string, unknown>);
          return { ...session, user: { ...session.user, id: user.id } };
        },
      },
    });

    const read = await call(c, "/auth/session", { jar });
    const readText = await read.text();
    expect(read.status).toBe(200);
    expect(readText).not.toContain(sessionToken);
    const body = JSON.parse(readText) as Record<string, unknown>;
    // The honest part of the answer is all there: the user, the expiry, the record's metadata.
    expect(body).toMatchObject({ user: { id: user.id, name: "Grace" }, userId: user.id, device: "Firefox on Linux" });
    expect(typeof body.expires).toBe("string");
    expect(Object.keys(body)).not.toContain("sessionToken");

    const updated = await call(c, "/auth/session", { jar, json: { csrfToken: await csrfToken(c, jar), data: {} } });
    expect(updated.status).toBe(200);
    expect(await updated.text()).not.toContain(sessionToken);

    const where = { protocol: "http:", host: "localhost:3000", cookieHeader: jar.header() };
    const { session: serverSide } = await sessionReadOf(where, c, { reissue: false });
    expect(serverSide).toMatchObject({ user: { id: user.id } });
    expect(JSON.stringify(serverSide)).not.toContain(sessionToken);

    // The callback itself never had it, and neither had the event.
    expect(seen.length).toBeGreaterThanOrEqual(3);
    for (const session of seen) expect(Object.hasOwn(session, "sessionToken")).toBe(false);
    expect(sessionEvent).toHaveBeenCalled();
    for (const [message] of sessionEvent.mock.calls) expect(JSON.stringify(message)).not.toContain(sessionToken);
    // Nothing was removed from the answer, so nothing to warn about.
    expect(log.warnings).not.toContain("session-callback-returned-token");
  });

  it("rule: a token the callback got some other way is removed from the answer at any depth, with one warning naming the fix", async () => {
    const adapter = MemoryAdapter();
    const { user, sessionToken, jar } = await seeded(adapter);
    const log = recordingLogger();
    const c = config(adapter, {
      logger: log.logger,
      callbacks: {
        // As if read back from a custom table: the raw token, a header built from it, in arrays.
        session: ({ session }) => ({
          ...session,
          user: { ...session.user, id: user.id },
          raw: sessionToken,
          debug: {
            header: `Bearer ${sessionToken}`,
            list: [sessionToken, "kept"],
            nested: [{ t: sessionToken, ok: 1 }],
          },
        }),
      },
    });
    for (let i = 0; i < 3; i++) {
      const response = await call(c, "/auth/session", { jar });
      const text = await response.text();
      expect(response.status).toBe(200);
      expect(text).not.toContain(sessionToken);
      expect(JSON.parse(text)).toMatchObject({
        user: { id: user.id },
        debug: { list: ["kept"], nested: [{ ok: 1 }] },
      });
    }
    expect(log.warnings.filter((w) => w === "session-callback-returned-token")).toHaveLength(1);
  });

  it("attack: a session callback that lists the user's devices through the adapter answers none of their tokens (the other devices' either)", async () => {
    const adapter = MemoryAdapter();
    const { user, sessionToken, jar } = await seeded(adapter);
    const other = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");
    await adapter.createSession?.({ sessionToken: other, userId: user.id, expires: new Date(Date.now() + 86_400_000) });
    const c = config(adapter, {
      callbacks: {
        // An account page's "your devices", read the direct way.
        session: async ({ session }) => ({ ...session, devices: await adapter.listSessions?.(user.id) }),
      },
    });
    const response = await call(c, "/auth/session", { jar });
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text).not.toContain(sessionToken);
    expect(text).not.toContain(other); // a script on the page must not get the other device's cookie
    const devices = (JSON.parse(text) as { devices: Array<Record<string, unknown>> }).devices;
    expect(devices).toHaveLength(2);
    for (const device of devices) expect(device).toMatchObject({ userId: user.id });
  });

  it("the signOut event still gets the ended record with its token, for applications that keep data per session", async () => {
    const adapter = MemoryAdapter();
    const { sessionToken, jar } = await seeded(adapter);
    const signOut = vi.fn();
    const c = config(adapter, { events: { signOut } });
    await call(c, "/auth/signout", { jar, form: { csrfToken: await csrfToken(c, jar) } });
    expect(signOut).toHaveBeenCalledWith({ session: expect.objectContaining({ sessionToken }) });
    // That token opens nothing any more.
    const after = new CookieJar();
    after.cookies.set(SESSION, sessionToken);
    expect(await (await call(c, "/auth/session", { jar: after })).json()).toBeNull();
  });
});
