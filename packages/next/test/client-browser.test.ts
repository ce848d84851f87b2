// The React client of @latchkey/next (`SessionProvider`, `useSession`, the browser functions) in
// Debian's Chromium (playwright-core, never a downloaded browser), in the App Router and in the
// Pages Router of one real `next build` / `next start` (the fixture app, test/fixture-app.ts):
// `/client/<mode>` and `/pages-client/<mode>` render the same panel (fixtures/app/components) under
// a SessionProvider set up as the mode says (fixtures/app/components/modes.ts). In the Pages
// Router that provider is the one of `_app`, as in next-auth's example application.
//
// Without /usr/bin/chromium the suite is skipped with a notice, unless CI is set: then it fails.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerProcess } from "../../../test/support/server-process.js";
import { browserSuiteRuns, launchChromium } from "../../express/test/support/chromium.js";
import { startFixtureApp } from "./fixture-app.js";

const runs = browserSuiteRuns("@latchkey/next React client");
const routers = [
  { router: "App Router", base: "/client" },
  { router: "Pages Router", base: "/pages-client" },
];

let app: ServerProcess;
let browser: Browser;
const contexts: BrowserContext[] = [];

/**
 * A browser of its own (cookies and all), its page, and the session fetches the page makes:
 * `window.__sessionFetches` counts the calls of `fetch` for `/api/auth/session` as they are made.
 */
async function freshPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: app.url });
  contexts.push(context);
  context.setDefaultTimeout(15_000); // a step that hangs fails with its name
  await context.addInitScript(() => {
    const counted = window as unknown as { __sessionFetches: number };
    counted.__sessionFetches = 0;
    const original = window.fetch.bind(window);
    window.fetch = (input, init) => {
      if (String(input instanceof Request ? input.url : input).includes("/api/auth/session"))
        counted.__sessionFetches++;
      return original(input, init);
    };
  });
  return { context, page: await context.newPage() };
}

/** How many session fetches the page has made so far. */
const sessionFetches = (page: Page) =>
  page.evaluate(() => (window as unknown as { __sessionFetches: number }).__sessionFetches);

/** Signs the browser in with a request of its own (not through the page): the page does not know. */
async function signInElsewhere(context: BrowserContext): Promise<void> {
  const csrf = await context.request.get("/api/auth/csrf");
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await context.request.post("/api/auth/callback/credentials", {
    form: { csrfToken, email: "ada@example.com", password: "right", callbackUrl: "/" },
    maxRedirects: 0,
  });
  expect(res.status()).toBe(302);
  expect((await context.cookies()).some((c) => c.name === "authjs.session-token")).toBe(true);
}

/** What the server says about the browser's session (GET /api/auth/session with its cookies). */
async function serverSession(context: BrowserContext): Promise<{ user?: { name?: string } } | null> {
  const session = (await (await context.request.get("/api/auth/session")).json()) as {
    user?: { name?: string };
  } | null;
  return session && Object.keys(session).length ? session : null;
}

/** Waits until `#id` reads `text`. */
async function shows(page: Page, id: string, text: string): Promise<void> {
  await page.waitForFunction(([id, text]) => document.getElementById(id)?.textContent === text, [id, text] as const);
}

/** Waits until `#result` holds an answer, and parses it. */
async function result(page: Page): Promise<Record<string, unknown> | null> {
  await page.waitForFunction(() => document.getElementById("result")?.textContent !== "");
  const value = JSON.parse((await page.textContent("#result")) ?? "null") as Record<string, unknown> | null;
  await page.evaluate(() => {
    const output = document.getElementById("result");
    if (output) output.textContent = "";
  });
  return value;
}

describe.skipIf(!runs)("the React client in both routers (next build + next start, Chromium)", () => {
  beforeAll(async () => {
    [app, browser] = await Promise.all([startFixtureApp(), launchChromium()]);
  }, 600_000);

  afterAll(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    await browser?.close();
    await app?.stop();
  });

  describe.each(routers)("$router", ({ base }) => {
    it("SessionProvider without a session: loading, then the session fetched from /api/auth/session", async () => {
      const { context, page } = await freshPage();
      await page.goto(`${base}/plain`);
      await shows(page, "status", "unauthenticated");
      await signInElsewhere(context);
      await page.goto(`${base}/plain`);
      await shows(page, "status", "authenticated");
      expect(await page.textContent("#user")).toBe("Ada");
      expect(await sessionFetches(page)).toBeGreaterThanOrEqual(1);
    });

    it("SessionProvider with the server's session: authenticated in the server's HTML, no fetch of its own", async () => {
      const { context, page } = await freshPage();
      await signInElsewhere(context);
      const res = await page.goto(`${base}/server`);
      expect(await res?.text()).toContain('<p id="status">authenticated</p>');
      await shows(page, "status", "authenticated");
      // A click runs once the page is hydrated and its mount effects have run: the one fetch
      // is the click's.
      await page.click("#get-session");
      expect((await result(page))?.user).toMatchObject({ name: "Ada" });
      expect(await sessionFetches(page)).toBe(1);
    });

    it("a SessionProvider nested in the outer one, fed its useSession() value while it loads, shows the session", async () => {
      const { context, page } = await freshPage();
      await signInElsewhere(context);
      await page.goto(`${base}/nested`);
      await shows(page, "status", "authenticated");
      expect(await page.textContent("#user")).toBe("Ada");
      // Signed out, it settles on unauthenticated (the outer fetch's answer), not on loading.
      const signedOut = await freshPage();
      await signedOut.page.goto(`${base}/nested`);
      await shows(signedOut.page, "status", "unauthenticated");
    });

    it("refetchInterval: a sign-in made elsewhere shows without a reload, a focus or a click", async () => {
      const { context, page } = await freshPage();
      await page.goto(`${base}/interval`);
      await shows(page, "status", "unauthenticated");
      await signInElsewhere(context);
      await shows(page, "status", "authenticated");
      expect(await page.textContent("#user")).toBe("Ada");
    });

    it("refetchOnWindowFocus: the session is fetched again when the page becomes visible, unless it is false", async () => {
      const becomeVisible = (page: Page) =>
        page.evaluate(() => {
          const counted = window as unknown as { __sessionFetches: number };
          const before = counted.__sessionFetches;
          document.dispatchEvent(new Event("visibilitychange"));
          return counted.__sessionFetches - before;
        });
      const focused = await freshPage();
      await focused.page.goto(`${base}/plain`);
      await shows(focused.page, "status", "unauthenticated");
      await signInElsewhere(focused.context);
      expect(await becomeVisible(focused.page)).toBe(1);
      await shows(focused.page, "status", "authenticated");

      const unfocused = await freshPage();
      await unfocused.page.goto(`${base}/no-focus`);
      await shows(unfocused.page, "status", "unauthenticated");
      await signInElsewhere(unfocused.context);
      expect(await becomeVisible(unfocused.page)).toBe(0);
      expect(await unfocused.page.textContent("#status")).toBe("unauthenticated");
      // The sign-in did happen: asking for the session shows it.
      await unfocused.page.click("#get-session");
      await shows(unfocused.page, "status", "authenticated");
    });

    it("useSession({ required, onUnauthenticated }): signed out, the callback runs and the status stays loading", async () => {
      const { context, page } = await freshPage();
      await page.goto(`${base}/required-callback`);
      await shows(page, "unauthenticated", "called");
      expect(await page.textContent("#status")).toBe("loading");
      expect(new URL(page.url()).pathname).toBe(`${base}/required-callback`);
      await signInElsewhere(context);
      await page.goto(`${base}/required-callback`);
      await shows(page, "status", "authenticated");
      expect(await page.textContent("#unauthenticated")).toBe("not called");
    });

    it("useSession({ required }) without onUnauthenticated: signed out, to the sign-in page (SessionRequired, back to the page)", async () => {
      const { page } = await freshPage();
      await page.goto(`${base}/required-redirect`);
      await page.waitForURL((url) => url.pathname === "/api/auth/signin");
      const url = new URL(page.url());
      expect(url.searchParams.get("error")).toBe("SessionRequired");
      expect(url.searchParams.get("callbackUrl")).toBe(`${app.url}${base}/required-redirect`);
    });

    it("signIn and signOut with redirect: false, update() and getSession(), without leaving the page", async () => {
      const { context, page } = await freshPage();
      await page.goto(`${base}/plain`);
      await shows(page, "status", "unauthenticated");

      await page.click("#sign-in-wrong");
      expect(await result(page)).toMatchObject({
        ok: false,
        error: "CredentialsSignin",
        code: "credentials",
        url: null,
      });
      expect(await page.textContent("#status")).toBe("unauthenticated");

      await page.click("#sign-in");
      expect(await result(page)).toMatchObject({ ok: true, status: 200 });
      await shows(page, "status", "authenticated");
      expect(await page.textContent("#user")).toBe("Ada");

      await page.click("#update");
      expect((await result(page))?.user).toMatchObject({ name: "Grace" });
      await shows(page, "user", "Grace");
      expect((await serverSession(context))?.user?.name).toBe("Grace");

      await page.click("#get-session");
      expect((await result(page))?.user).toMatchObject({ name: "Grace" });

      await page.click("#sign-out");
      expect(await result(page)).toMatchObject({ url: expect.stringContaining(base) });
      await shows(page, "status", "unauthenticated");
      expect(new URL(page.url()).pathname).toBe(`${base}/plain`);
      expect(await serverSession(context)).toBeNull();
    });
  });
});
