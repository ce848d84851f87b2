/**
 * Adversarial review (feat-attack): a session cookie is the client's text, and under database
 * sessions it becomes a store lookup. PostgreSQL cannot hold U+0000 in text: before the fix,
 * `Cookie: authjs.session-token=a%00b` (anonymous, no account needed) made `GET /auth/session`
 * answer 500, `getSession` and sign-out log "Adapter method `getSessionAndUser` failed" (an
 * error log line per request, at the attacker's rate), and the sessions API throw into the
 * application. A value no store can hold names no record: the lookup finds nothing without
 * asking the store, the same on every store.
 */
import type { AuthConfig } from "@latchkey/core";
import Nodemailer from "@latchkey/core/providers/nodemailer";
import express from "express";
import { describe, expect, it } from "vitest";
import { ExpressAuth, getSession, listSessions } from "../src/index.js";
import { Jar, listen } from "./helpers.js";
import { backends } from "./stores.js";

const COOKIES = ["a%00b", "%00", `${"7".repeat(36)}%00`, "x%00%0d%0aSet-Cookie:%20a=b"];

describe.each(await backends("attacknul", ["postgres", "mariadb", "redis"]))(
  "rule: a session cookie no store can hold names no session, with %s",
  (_name, up, open) => {
    it.skipIf(!up)(
      "NUL in the cookie: signed out everywhere, never a 5xx, an error log or a throw into the application",
      async () => {
        const backend = await open();
        const errors: string[] = [];
        const config: AuthConfig = {
          secret: "attack-unstorable-lookups-secret-0123456789abcdef",
          trustHost: true,
          adapter: backend.adapter,
          session: { strategy: "database" },
          logger: { error: (e) => errors.push(String((e as Error)?.message ?? e)), warn() {}, debug() {} },
          providers: [
            Nodemailer({
              server: "smtp://127.0.0.1:1",
              from: "app@example.com",
              sendVerificationRequest: async () => {},
            }),
          ],
        };
        const app = express();
        app.use("/auth", ExpressAuth(config));
        app.get("/me", async (req, res) => res.json({ session: await getSession(req, config) }));
        app.get("/devices", async (req, res, next) => {
          try {
            res.json({ sessions: await listSessions(req, config) });
          } catch (e) {
            next(e);
          }
        });
        const { url, close } = await listen(app);
        try {
          for (const value of COOKIES) {
            const jar = new Jar();
            jar.cookies.set("authjs.session-token", value);
            const session = await jar.fetch(`${url}/auth/session`);
            expect(session.status, value).toBe(200);
            expect(await session.json()).toBeNull();
            expect(jar.cookies.has("authjs.session-token"), "the cookie is cleared").toBe(false);
            jar.cookies.set("authjs.session-token", value);
            expect(await (await jar.fetch(`${url}/me`)).json()).toEqual({ session: null });
            const devices = await jar.fetch(`${url}/devices`);
            expect(devices.status, value).toBe(200);
            expect(await devices.json()).toEqual({ sessions: null });
            const { csrfToken } = (await (await jar.fetch(`${url}/auth/csrf`)).json()) as { csrfToken: string };
            const signOut = await jar.fetch(`${url}/auth/signout`, { form: { csrfToken } });
            expect(signOut.status, value).toBe(302);
          }
          expect(errors).toEqual([]);
        } finally {
          await close();
          await backend.close();
        }
      },
    );
  },
);
