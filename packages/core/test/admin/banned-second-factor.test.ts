/**
 * A ban that lands between a sign-in's password and its second factor. `Admin.ban` ends the
 * sign-in held for the code with the user's sessions (the code is then refused as any code of an
 * ended sign-in); and a ban stored before its sessions are ended (the ban's own first step) is
 * refused at the code with `AccessDenied`, because the second factor's step finishes the sign-in
 * where every path does (`startSession`). Neither leaves a session.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Admin, MemoryAdminStore } from "../../src/admin.js";
import { base32Decode, hotp, TOTP_PERIOD, timeStep } from "../../src/lib/flows/second-factor/totp.js";
import { createMemoryStore, MemoryAdapter } from "../../src/memory-adapter.js";
import Credentials from "../../src/providers/credentials.js";
import TOTP from "../../src/providers/totp.js";
import { confirmTotpEnrolment, startTotpEnrolment } from "../../src/second-factor.js";
import type { AuthConfig } from "../../src/types.js";
import { CookieJar, call, csrfToken, SECRET } from "../helpers.js";

beforeEach(() => {
  // Mid-period, so that the code typed is the one of the step the test computes.
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Math.floor(Date.now() / 1000 / TOTP_PERIOD) * TOTP_PERIOD * 1000 + 15_000);
});
afterEach(() => {
  vi.useRealTimers();
});

describe.each(["jwt", "database"] as const)(
  "a ban between the password and the second factor (%s sessions)",
  (strategy) => {
    it.each(["through Admin.ban", "stored, its sessions not yet ended"] as const)(
      "rule: the sign-in held for the code is refused at the code (ban %s), and no session is made",
      async (how) => {
        const store = MemoryAdminStore();
        const memory = createMemoryStore();
        const adapter = MemoryAdapter(memory);

        await adapter.createUser?.({ id: "u-eve", email: "eve@example.com", emailVerified: null, name: "Eve" });
        const config: AuthConfig = {
          secret: SECRET,
          trustHost: true,
          adapter,
          session: strategy === "jwt" ? { strategy, revocation: true } : { strategy },
          admin: { store },
          rateLimit: false,
          logger: { error: () => {}, warn: () => {}, debug: () => {} },
          providers: [
            Credentials({
              databaseSessions: strategy === "database",
              credentials: { email: {}, password: {} },
              authorize: async (c) =>
                c.password === "pw" ? ((await adapter.getUserByEmail?.(String(c.email))) ?? null) : null,
            }),
            TOTP({ issuer: "Latchkey Test" }),
          ],
        };
        const enrolment = await startTotpEnrolment(config, { id: "u-eve", label: "eve@example.com" });
        const code = (step: number) => hotp(base32Decode(enrolment.secret) as Buffer, step);
        expect((await confirmTotpEnrolment(config, "u-eve", code(timeStep()))).ok).toBe(true);
        vi.setSystemTime(Date.now() + TOTP_PERIOD * 1000);

        const jar = new CookieJar();
        const held = await call(config, "/auth/callback/credentials", {
          jar,
          form: { csrfToken: await csrfToken(config, jar), email: "eve@example.com", password: "pw" },
        });
        expect(held.headers.get("location")).toBe("http://localhost:3000/auth/callback/totp");

        if (how === "through Admin.ban") {
          const admin = Admin(config, { admins: { userIds: ["u-owner"] } });
          expect((await admin.ban("u-owner", "u-eve", { reason: "fraud" })).ok).toBe(true);
        } else {
          const ban = { userId: "u-eve", reason: "fraud", bannedBy: "u-owner", bannedAt: new Date(), expiresAt: null };
          await store.setBan(ban);
        }

        const answer = await call(config, "/auth/callback/totp", {
          jar,
          form: { csrfToken: await csrfToken(config, jar), code: code(timeStep()) },
        });
        expect(answer.headers.get("location")).toBe(
          how === "through Admin.ban"
            ? "http://localhost:3000/auth/callback/totp?error=CredentialsSignin"
            : "http://localhost:3000/auth/error?error=AccessDenied",
        );
        expect(jar.get("authjs.session-token")).toBeUndefined();
        const session = await (await call(config, "/auth/session", { jar })).json();
        expect(session).toBeNull();
        expect([...memory.sessions.values()]).toEqual([]);
      },
    );
  },
);
