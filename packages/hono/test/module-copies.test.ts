// @latchkey/hono and @latchkey/core loaded twice in one process, as a bundler makes them (one copy
// per server layer) or an application that installed them twice: the built packages and a copy
// of both in a folder of their own. `HonoAuth` of one copy serves under `app.route("/api", ...)`,
// `requireAuth` of the other guards; the mount the handler served under is the application's,
// so the guard sends a browser to that mount's sign-in page, not to the default `/auth`.
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { serve } from "@hono/node-server";
import type { AuthConfig } from "@latchkey/core";
import * as ownInternal from "@latchkey/core/internal";
import { Hono } from "hono";
import { afterAll, beforeAll, expect, it } from "vitest";
import { adaCredentials, Jar, signIn } from "../../../test/frameworks/http.js";
import * as own from "../src/index.js";

type HonoPackage = typeof import("../src/index.js");
type Internal = typeof import("@latchkey/core/internal");

const packages = fileURLToPath(new URL("../..", import.meta.url));
const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

const config = {
  secret: "hono-copies-secret-0123456789abcdefghijkl",
  logger: { error() {}, warn() {}, debug() {} },
  providers: [adaCredentials()],
  callbacks: {
    session: ({ session, token }) => ({ ...session, user: { ...session.user, id: token.sub as string } }),
  },
} satisfies AuthConfig;

let folder: string;
let copy: HonoPackage;
let copyInternal: Internal;
let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), "latchkey-hono-copy-"));
  // folder/node_modules/@latchkey/core: the built core (its own dependencies from the repository's
  // node_modules); folder/hono: the built Hono package, which finds that core above it.
  const core = join(folder, "node_modules", "@latchkey", "core");
  mkdirSync(core, { recursive: true });
  cpSync(join(packages, "core", "dist"), join(core, "dist"), { recursive: true });
  cpSync(join(packages, "core", "package.json"), join(core, "package.json"));
  symlinkSync(join(repoRoot, "node_modules"), join(core, "node_modules"), "dir");
  const hono = join(folder, "hono");
  cpSync(join(packages, "hono", "dist"), join(hono, "dist"), { recursive: true });
  cpSync(join(packages, "hono", "package.json"), join(hono, "package.json"));
  copy = (await import(pathToFileURL(join(hono, "dist", "index.js")).href)) as HonoPackage;
  copyInternal = (await import(pathToFileURL(join(core, "dist", "internal.js")).href)) as Internal;

  const app = new Hono();
  const api = new Hono();
  api.use("/auth/*", own.HonoAuth(config));
  api.get("/account", copy.requireAuth(config), (c) => c.json({ id: c.get("session").user.id }));
  app.route("/api", api);
  const v2 = new Hono();
  v2.use("/auth/*", copy.HonoAuth(config));
  v2.get("/account", own.requireAuth(config), (c) => c.json({ id: c.get("session").user.id }));
  app.route("/v2", v2);
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise((resolve) => server.once("listening", resolve));
  url = `http://localhost:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
});
afterAll(async () => {
  await close?.();
  rmSync(folder, { recursive: true, force: true });
});

it("the copy is a second module of each package (its own noteMount and module state)", () => {
  expect(copy.requireAuth).not.toBe(own.requireAuth);
  expect(copyInternal.noteMount).not.toBe(ownInternal.noteMount);
});

it.each([
  ["the handler of the first copy, the guard of the second", "api"],
  ["the handler of the second copy, the guard of the first", "v2"],
])("%s: a browser is sent to the mount the handler served under (/%s/auth)", async (_, mount) => {
  expect((await fetch(`${url}/${mount}/auth/csrf`)).status).toBe(200); // the handler has served once
  const browser = await fetch(`${url}/${mount}/account`, { headers: { accept: "text/html" }, redirect: "manual" });
  expect(browser.status).toBe(302);
  expect(browser.headers.get("location")).toBe(`/${mount}/auth/signin?callbackUrl=%2F${mount}%2Faccount`);
  const jar = new Jar();
  expect((await signIn(jar, `${url}/${mount}/auth`)).status).toBe(302);
  expect(await (await jar.fetch(`${url}/${mount}/account`)).json()).toEqual({ id: "u1" });
});
