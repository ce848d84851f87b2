/**
 * The Next.js demo end to end in Debian's Chromium (playwright-core, never a downloaded browser),
 * for one Next.js major: built with `next build` and served by `next start` (through the demo's
 * start script) once for the file, every test on that one server. Every sign-in method: the
 * password through a server action (a wrong one shows the CredentialsSignin the action caught),
 * the local IdP, the magic link from the mail catcher, a passkey on a virtual authenticator, an
 * authenticator-app code after the password; the page the proxy/middleware protects; useSession
 * after update(); a client sign-out seen by another tab.
 *
 * Without /usr/bin/chromium the suite is skipped with a notice, unless CI is set: then it fails.
 */
import { type RawAnswer, rawRequest } from "@latchkey/adapter-test/hostile-hosts";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addVirtualPasskey,
  browserSuiteRuns,
  launchChromium,
} from "../../../../packages/express/test/support/chromium.js";
import { stepNow, totpAt } from "../../../express-demo/test/totp-code.js";
import { appDirs, buildDemo, type NextDemo, startNextDemo } from "../support.js";

/** A test's own limit: a few page loads of a production build, on a machine shared with other tests. */
const STEP = 120_000;

/** The attacker's host, named in every hostile header. */
const EVIL = "evil.example";

export function nextDemoSuite(major: 15 | 16): void {
  const runs = browserSuiteRuns(`next-demo (Next.js ${major}) e2e`);
  let demo: NextDemo;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  async function freshPage(): Promise<Page> {
    const context = await browser.newContext();
    contexts.push(context);
    context.setDefaultTimeout(15_000); // a step that hangs fails with its name
    return context.newPage();
  }

  async function whoIsSignedIn(page: Page): Promise<string> {
    await page.goto(`${demo.url}/`);
    return (await page.textContent("#who"))?.replace(/\s+/g, " ").trim() ?? "";
  }

  /** The navigation's sign-out button: a server action calling signOut({ redirectTo: "/" }). */
  async function signOut(page: Page): Promise<void> {
    await page.goto(`${demo.url}/account`);
    await page.click("#nav-signout button");
    await page.waitForFunction(() => document.querySelector("#who")?.textContent === "You are not signed in.");
    expect(await whoIsSignedIn(page)).toBe("You are not signed in.");
  }

  /** The password form of /login (a server action); resolves once the browser is at `landing`. */
  async function signInWithPassword(page: Page, callbackUrl: string, landing: string | RegExp): Promise<void> {
    await page.goto(`${demo.url}/login?callbackUrl=${encodeURIComponent(callbackUrl)}`);
    await page.fill('#password-form input[name="email"]', "demo@example.com");
    await page.fill('#password-form input[name="password"]', "demo-password");
    await Promise.all([page.waitForURL(landing), page.click("#password-form button")]);
  }

  const sessionOnPage = async (page: Page) => JSON.parse((await page.textContent("#session")) ?? "null");

  /** The password form of /login with `email` and `password`; resolves once the browser lands on `landing`. */
  async function passwordSignIn(page: Page, email: string, password: string, landing: string | RegExp) {
    await page.goto(`${demo.url}/login`);
    await page.fill('#password-form input[name="email"]', email);
    await page.fill('#password-form input[name="password"]', password);
    await Promise.all([page.waitForURL(landing), page.click("#password-form button")]);
  }

  /** The password form of /login refuses `password`: the action's message, no session. */
  async function passwordRefused(page: Page, email: string, password: string) {
    await page.goto(`${demo.url}/login`);
    await page.fill('#password-form input[name="email"]', email);
    await page.fill('#password-form input[name="password"]', password);
    await page.click("#password-form button");
    expect(await page.locator("#password-error").textContent()).toBe("Wrong e-mail or password.");
    expect(await whoIsSignedIn(page)).toBe("You are not signed in.");
  }

  /** The newest message to `to` at /dev/mail with a link under `path`, or a code: its code and links. */
  async function newestMail(page: Page, to: string, has: { link: string } | "code") {
    await page.goto(`${demo.url}/dev/mail`);
    const mail = page
      .locator("li.mail", { has: page.locator(".to", { hasText: to }) })
      .filter(has === "code" ? { has: page.locator(".code") } : { has: page.locator(`a[href*="${has.link}"]`) })
      .first();
    return {
      code: (await mail.locator(".code").count()) ? await mail.locator(".code").textContent() : null,
      links: await mail.locator("a").evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href)),
    };
  }

  /** Submits one of the password-account forms (fields by name) and waits for `landing`. */
  async function submitAccountForm(page: Page, form: string, fields: Record<string, string>, landing: string | RegExp) {
    for (const [name, value] of Object.entries(fields)) await page.fill(`${form} input[name="${name}"]`, value);
    await Promise.all([page.waitForURL(landing), page.click(`${form} button`)]);
  }

  /** Signs up `email` on /signup and proves it with the mailed code, in `page`'s browser. */
  async function createAccount(page: Page, email: string, password: string): Promise<void> {
    await page.goto(`${demo.url}/signup`);
    await submitAccountForm(page, "#signup-form", { email, password, confirm: password }, `${demo.url}/verify?sent=1`);
    const { code } = await newestMail(page, email, "code");
    expect(code).toMatch(/^[0-9]{6}$/);
    await page.goto(`${demo.url}/verify`);
    await submitAccountForm(page, "#verify-code-form", { code: code ?? "" }, `${demo.url}/login?verified=1`);
  }

  /** Waits until the browser of `page` is signed out (the revocation reaches this server), or fails with what it saw. */
  async function signedOutSoon(page: Page): Promise<void> {
    await expect.poll(() => whoIsSignedIn(page), { timeout: 10_000, interval: 200 }).toBe("You are not signed in.");
  }

  // Hostile hosts on the password-account Server Actions (issue 34 item 2): the helpers of the
  // two attack tests below.

  /** One message the demo's SMTP server caught, as its mail catcher lists it. */
  interface Caught {
    id: number;
    to: string[];
    text: string;
    html: string;
  }

  /** Everything the demo's SMTP server still holds (its last 50), newest first, from the catcher's JSON the start script names. */
  async function caught(): Promise<Caught[]> {
    const source = /the same as JSON \(text and HTML parts included\) at (http:\S+)/.exec(demo.output())?.[1];
    expect(source, "the start script names its mail catcher's JSON").toBeDefined();
    return (await (await fetch(source as string)).json()) as Caught[];
  }

  /** The number of the newest message caught (0 before any). */
  const lastMail = async () => (await caught())[0]?.id ?? 0;

  /** The messages to `address` caught after message number `since`. */
  const mailSince = async (address: string, since: number) =>
    (await caught()).filter((m) => m.id > since && m.to.includes(address));

  /** Every link of `mail` (text and HTML parts) is on the demo's AUTH_URL origin, and the attacker's host is nowhere in it. */
  function linksOnlyHome(mail: Caught, what: string): void {
    const whole = `${mail.text}\n${mail.html}`;
    const links = [...whole.matchAll(/https?:\/\/[^\s<>"'&]+/g)].map((m) => m[0]);
    expect(links.length, what).toBeGreaterThan(0);
    for (const link of links) expect(new URL(link).origin, what).toBe(demo.url);
    expect(whole, what).not.toContain(EVIL);
  }

  /** A Server Action's request as the browser sent it: what an attacker copies from his own browser to replay. */
  interface RecordedAction {
    path: string;
    headers: Record<string, string>;
    body: string;
    /** The address typed in the form (each replay puts its own in its place). */
    typed: string;
  }

  /** The request the form `form` of the page `path` sends, filled with `fields` (`email` among them); and what the page then shows. */
  async function recordAction(
    path: string,
    form: string,
    fields: Record<string, string>,
  ): Promise<{ action: RecordedAction; page: Page }> {
    const page = await freshPage();
    await page.goto(`${demo.url}${path}`);
    for (const [name, value] of Object.entries(fields)) await page.fill(`${form} input[name="${name}"]`, value);
    const sent = page.waitForRequest((r) => r.method() === "POST" && new URL(r.url()).pathname === path);
    await page.click(`${form} button`);
    const request = await sent;
    // The browser's headers but those the HTTP client writes itself (the length, compression).
    const { "content-length": _, "accept-encoding": __, ...headers } = await request.allHeaders();
    return { action: { path, headers, body: request.postData() ?? "", typed: fields.email ?? "" }, page };
  }

  /** The action posted again over raw HTTP for `address`, the attacker's `headers` over the browser's (`undefined` drops one). */
  function replay(action: RecordedAction, address: string, headers: Record<string, string | undefined>) {
    return rawRequest(
      `${demo.url}${action.path}`,
      "POST",
      sentHeaders(action, headers),
      action.body.replaceAll(action.typed, address),
    );
  }

  /** The headers a replay of `action` with the attacker's `headers` sends. */
  function sentHeaders(action: RecordedAction, headers: Record<string, string | undefined>): Record<string, string> {
    const sent: Record<string, string> = {};
    for (const [name, value] of Object.entries({ ...action.headers, ...headers }))
      if (value !== undefined) sent[name] = value;
    return sent;
  }

  /** What a client reads of an action's answer: its status, its redirect, the cookies it sets (names), its result when it stays on the page. */
  function answerOf(answer: Pick<RawAnswer, "status" | "headers" | "body">): string {
    const redirect = answer.headers["x-action-redirect"];
    const cookies = [answer.headers["set-cookie"] ?? []]
      .flat()
      .flatMap((line) => line.split("\n"))
      .map((line) => line.split("=")[0])
      .sort();
    return `${answer.status} ${redirect ?? "(no redirect)"} [${cookies.join(" ")}] ${redirect ? "" : answer.body}`;
  }

  /**
   * Who refused an action answered 500: the error the demo logged under the answer's digest,
   * Next.js's own check ("Invalid Server Actions request": the `Origin` must name the host it
   * sees) or Latchkey's (`MissingCSRF`). Anything else is returned as it was logged.
   */
  async function refusedBy(answer: Pick<RawAnswer, "status" | "body">, what: string): Promise<string> {
    expect(answer.status, `${what}: ${answer.body.slice(0, 300)}`).toBe(500);
    // The answer's digest; Next.js 15 adds its error code ("@E80"), which the log leaves out.
    const digest = /E\{"digest":"([^"@]+)/.exec(answer.body)?.[1];
    expect(digest, `${what}: ${answer.body.slice(0, 300)}`).toBeDefined();
    const mark = `digest: '${digest}'`;
    await expect.poll(() => demo.output().includes(mark), { timeout: 10_000, interval: 100 }).toBe(true);
    // The logged error: from Next.js's "⨯" that opens it to its digest.
    const before = demo.output().slice(0, demo.output().indexOf(mark));
    const error = before.slice(before.lastIndexOf("⨯"));
    if (error.includes("Invalid Server Actions request.")) return "Next.js";
    if (error.includes("type: 'MissingCSRF'")) return "Latchkey";
    return error;
  }

  /**
   * Whether a Server Action sent with `headers` runs: Next.js runs it only when the `Origin`'s
   * host is the host it sees (`X-Forwarded-Host`, else `Host`); Latchkey only from AUTH_URL's
   * origin, or without an `Origin` from a browser that says `Sec-Fetch-Site: same-origin`.
   * Neither reads `Forwarded`.
   */
  function actionRuns(headers: Record<string, string>): boolean {
    const real = new URL(demo.url).host;
    if (headers.origin === undefined) return headers["sec-fetch-site"] === "same-origin";
    // Without a `Host` of its own (a route's headers may lack it), one is sent with the URL's.
    return headers.origin === demo.url && (headers["x-forwarded-host"] ?? headers.host ?? real) === real;
  }

  /**
   * One attacker's request for `address` judged: an action that runs answers as the honest request
   * did (`honest`, when given), and every message it mails `address` links only to AUTH_URL's origin (a fresh
   * address, `mails`, must get one; an account's may be past its hourly budget); a refused one is
   * refused by Next.js or Latchkey, and mails nothing. Returns the client's reading of the answer.
   */
  async function judge(
    answer: Pick<RawAnswer, "status" | "headers" | "body">,
    sent: Record<string, string>,
    target: { address: string; since: number; mails: boolean },
    honest: string | undefined,
    what: string,
  ): Promise<string> {
    const mails = await mailSince(target.address, target.since);
    if (actionRuns(sent)) {
      if (honest !== undefined) expect(answerOf(answer), what).toBe(honest);
      if (target.mails) expect(mails.length, `${what}: one e-mail`).toBe(1);
      for (const mail of mails) linksOnlyHome(mail, what);
    } else {
      expect(await refusedBy(answer, what), what).toMatch(/^(Next\.js|Latchkey)$/);
      expect(mails, `${what}: no e-mail`).toEqual([]);
    }
    return answerOf(answer);
  }

  /** The attacker's headers: each names `evil.example` where a link's host could be taken from. */
  function hostileHeaders(): Array<[string, Record<string, string>]> {
    const real = new URL(demo.url).host;
    const forwarded = `for=203.0.113.9;host=${EVIL};proto=https`;
    return [
      ["a hostile Host", { host: EVIL }],
      ["a hostile X-Forwarded-Host", { "x-forwarded-host": EVIL, "x-forwarded-proto": "https" }],
      ["a hostile Forwarded", { forwarded }],
      ["all three", { host: EVIL, "x-forwarded-host": EVIL, "x-forwarded-proto": "https", forwarded }],
      ["a hostile Host under the real X-Forwarded-Host", { host: EVIL, "x-forwarded-host": real }],
    ];
  }

  /** What else a raw client may send besides: the real `Origin`, the attacker's, none (with or without a forged `Sec-Fetch-Site`). */
  function originsOfRawClients(): Array<[string, Record<string, string | undefined>]> {
    return [
      ["the real Origin", { origin: demo.url }],
      ["the attacker's Origin", { origin: `https://${EVIL}` }],
      ["no Origin, Sec-Fetch-Site: same-origin forged", { origin: undefined, "sec-fetch-site": "same-origin" }],
      ["neither Origin nor Sec-Fetch-Site", { origin: undefined, "sec-fetch-site": undefined }],
    ];
  }

  /**
   * The two Server Actions that mail a link, each recorded from its page with a fresh address:
   * the reset request of /forgot (the seeded demo user has an account) and the sign-up of /signup
   * (the demo user's address is taken: the owner is mailed a note).
   */
  async function mailingActions() {
    const stamp = `${major}-${Date.now()}`;
    const forgot = await recordAction("/forgot", "#forgot-form", { email: `asker-${stamp}@example.com` });
    await forgot.page.locator("#forgot-form-notice").waitFor();
    const signUp = await recordAction("/signup", "#signup-form", {
      email: `joiner-${stamp}@example.com`,
      password: "hostile passphrase 1",
      confirm: "hostile passphrase 1",
    });
    await signUp.page.waitForURL(`${demo.url}/verify?sent=1`);
    const actions = [
      { name: "the password-reset request", form: "#forgot-form", action: forgot.action },
      { name: "the sign-up (its verification e-mail)", form: "#signup-form", action: signUp.action },
    ];
    return Promise.all(
      actions.map(async (a, i) => {
        // The honest request's answer, replayed with the browser's own headers for a fresh address.
        const address = `honest-${i}-${stamp}@example.com`;
        const since = await lastMail();
        const answer = await replay(a.action, address, {});
        const mails = await mailSince(address, since);
        expect(mails, `${a.name}, honest`).toHaveLength(1);
        linksOnlyHome(mails[0] as Caught, `${a.name}, honest`);
        return { ...a, stamp, honest: answerOf(answer) };
      }),
    );
  }

  /** The one `next build` of this file, whichever describe asks first. */
  let building: Promise<void> | undefined;
  const built = () => {
    building ??= buildDemo(appDirs[major]);
    return building;
  };

  describe.skipIf(!runs)(`the Next.js ${major} demo in Chromium`, () => {
    beforeAll(async () => {
      const [, launched] = await Promise.all([built(), launchChromium()]);
      browser = launched;
      demo = await startNextDemo(appDirs[major]);
    }, 600_000);

    afterAll(async () => {
      await Promise.all(contexts.map((c) => c.close()));
      await browser?.close();
      await demo?.stop();
    });

    it(
      "password through a server action: the middleware sends to /login, a wrong password is shown, the right one lands on the protected page",
      async () => {
        const page = await freshPage();
        await page.goto(`${demo.url}/protected`);
        expect(page.url()).toBe(`${demo.url}/login?callbackUrl=%2Fprotected`);

        await page.fill('#password-form input[name="email"]', "demo@example.com");
        await page.fill('#password-form input[name="password"]', "wrong-password");
        await page.click("#password-form button");
        // The action caught CredentialsSignin and returned the message: same page, no redirect.
        expect(await page.locator("#password-error").textContent()).toBe("Wrong e-mail or password.");
        expect(page.url()).toBe(`${demo.url}/login?callbackUrl=%2Fprotected`);
        expect(await whoIsSignedIn(page)).toBe("You are not signed in.");

        await signInWithPassword(page, "/protected", `${demo.url}/protected`);
        expect(await page.textContent("#secret")).toBe("Only signed-in users see this, Demo User.");
        expect(await whoIsSignedIn(page)).toBe("Signed in as Demo User (demo@example.com) with password.");
        // auth() in a Route Handler and in generateMetadata.
        const me = await page.request.get(`${demo.url}/api/me`);
        expect(me.status()).toBe(200);
        expect(await me.json()).toMatchObject({ user: { email: "demo@example.com" }, provider: "credentials" });
        expect(await page.title()).toBe("Latchkey Next.js demo · Demo User");

        await signOut(page);
        await page.goto(`${demo.url}/protected`);
        expect(page.url()).toBe(`${demo.url}/login?callbackUrl=%2Fprotected`);
        expect((await page.request.get(`${demo.url}/api/me`)).status()).toBe(401);
      },
      STEP,
    );

    it(
      "Demo IdP through a server action: the IdP's login page, back signed in",
      async () => {
        const page = await freshPage();
        await page.goto(`${demo.url}/login?callbackUrl=%2Faccount`);
        await page.click("#idp-form button");
        await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/interaction\//);
        await page.fill('input[name="login"]', "alice");
        await page.fill('input[name="password"]', "any password");
        await Promise.all([page.waitForURL(`${demo.url}/account`), page.click('button[type="submit"]')]);
        expect(await sessionOnPage(page)).toMatchObject({
          user: { name: "alice", email: "alice@idp.example" },
          provider: "demo-idp",
        });
        expect(await whoIsSignedIn(page)).toBe("Signed in as alice (alice@idp.example) with Demo IdP.");
        await signOut(page);
      },
      STEP,
    );

    it(
      "attack: a magic link asked for with a hostile Host, X-Forwarded-Host or Forwarded on next start links to the demo's own origin",
      async () => {
        const real = new URL(demo.url).host;
        const attacks: Array<Record<string, string>> = [
          { host: "evil.example" },
          { host: real, "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" },
          { host: real, forwarded: "host=evil.example;proto=https" },
        ];
        const page = await freshPage();
        for (const [index, headers] of attacks.entries()) {
          const address = `hostile-${major}-${index}-${Date.now()}@example.com`;
          const csrf = await rawRequest(`${demo.url}/api/auth/csrf`, "GET", headers);
          const { csrfToken } = JSON.parse(csrf.body) as { csrfToken: string };
          const asked = await rawRequest(
            `${demo.url}/api/auth/signin/nodemailer`,
            "POST",
            {
              ...headers,
              cookie: csrf.setCookie.map((c) => c.split(";")[0]).join("; "),
              "content-type": "application/x-www-form-urlencoded",
            },
            new URLSearchParams({ csrfToken, email: address }).toString(),
          );
          expect(asked.status, JSON.stringify(headers)).toBe(302);
          await page.goto(`${demo.url}/dev/mail`);
          const message = page.locator("li.mail", { has: page.locator(".to", { hasText: address }) });
          expect(await message.count(), JSON.stringify(headers)).toBe(1);
          const links = await message.locator("a").evaluateAll((as) => as.map((a) => a.getAttribute("href") ?? ""));
          expect(links.length).toBeGreaterThan(0);
          for (const link of links) expect(new URL(link).origin, JSON.stringify(headers)).toBe(demo.url);
        }
      },
      STEP,
    );

    it(
      "attack: a password reset and a sign-up asked for in Chromium with a hostile Host, X-Forwarded-Host or Forwarded added to the Server Action's request: refused by Next.js or Latchkey, or the e-mail links only to AUTH_URL and the page shows what an honest visitor sees",
      async () => {
        const actions = await mailingActions();
        expect(actions[0]?.honest).toContain(
          "If an account has this address, a link to choose a new password is on its way.",
        );
        expect(actions[1]?.honest).toMatch(/^\d+ \/verify\?sent=1;push \[latchkey\.email-verification\]/);
        let ran = 0;
        let tried = 0;
        for (const [label, headers] of hostileHeaders()) {
          for (const { name, form, action, stamp, honest } of actions) {
            const what = `${name} with ${label}`;
            const page = await freshPage();
            await page.goto(`${demo.url}${action.path}`);
            // The browser's own request, sent on with the attacker's headers added (route.fetch: a
            // page cannot set them itself); the browser gets the answer.
            const answered = new Promise<
              Pick<RawAnswer, "status" | "headers" | "body"> & { sent: Record<string, string> }
            >((resolve, reject) => {
              void page.route(`${demo.url}${action.path}`, async (route) => {
                if (route.request().method() !== "POST") return route.continue();
                try {
                  const sent = { ...(await route.request().allHeaders()), ...headers };
                  const response = await route.fetch({ headers: sent });
                  resolve({
                    status: response.status(),
                    headers: response.headers(),
                    body: await response.text(),
                    sent,
                  });
                  await route.fulfill({ response });
                } catch (e) {
                  reject(e);
                }
              });
            });
            const address = `browser-${++tried}-${stamp}@example.com`;
            const since = await lastMail();
            await page.fill(`${form} input[name="email"]`, address);
            if (form === "#signup-form")
              for (const field of ["password", "confirm"])
                await page.fill(`${form} input[name="${field}"]`, "hostile passphrase 2");
            await page.click(`${form} button`);
            const answer = await answered;
            await judge(answer, answer.sent, { address, since, mails: true }, honest, what);
            if (!actionRuns(answer.sent)) continue;
            ran++;
            // What the page shows is what it shows an honest visitor.
            if (form === "#forgot-form")
              expect(await page.locator("#forgot-form-notice").textContent(), what).toContain(
                "If an account has this address",
              );
            else await page.waitForURL(`${demo.url}/verify?sent=1`);
          }
        }
        // The hostile Forwarded and the hostile Host under the real X-Forwarded-Host reach the actions.
        expect(ran).toBe(4);
      },
      3 * STEP,
    );

    it(
      "attack: the same Server Actions replayed over raw HTTP with a hostile Host, X-Forwarded-Host, Forwarded or all three, with the real Origin, the attacker's or none: refused by Next.js or Latchkey, or the e-mail links only to AUTH_URL; an account's address and a fresh one are answered alike",
      async () => {
        const actions = await mailingActions();
        let ran = 0;
        let tried = 0;
        for (const { name, action, stamp, honest } of actions) {
          for (const [label, headers] of hostileHeaders()) {
            for (const [origin, more] of originsOfRawClients()) {
              const sent = sentHeaders(action, { ...headers, ...more });
              const what = `${name} with ${label} and ${origin}`;
              // A fresh address: answered as the honest request, and mailed (when the action runs).
              const fresh = `raw-${++tried}-${stamp}@example.com`;
              const since = await lastMail();
              await judge(
                await replay(action, fresh, { ...headers, ...more }),
                sent,
                { address: fresh, since, mails: true },
                honest,
                what,
              );
              // The demo user's address and one without an account, asked for as often: answered
              // alike (past the hourly budget of an address too, which both reach together).
              const pair: string[] = [];
              for (const address of ["demo@example.com", `nobody-${stamp}@example.com`]) {
                const before = await lastMail();
                const answer = await replay(action, address, { ...headers, ...more });
                pair.push(
                  await judge(
                    answer,
                    sent,
                    { address, since: before, mails: false },
                    undefined,
                    `${what}, for ${address}`,
                  ),
                );
              }
              expect(pair[0], `${what}: no enumeration`).toBe(pair[1]);
              if (actionRuns(sent)) ran++;
            }
          }
        }
        // Per action: the real Origin under a hostile Forwarded or under the real X-Forwarded-Host,
        // and each of the five header sets with a forged Sec-Fetch-Site and no Origin.
        expect(ran).toBe(2 * 7);
      },
      3 * STEP,
    );

    it(
      "attack: 30 hostile raw requests of the two Server Actions at once: each refused with nothing mailed, or answered as the honest request with an e-mail linking only to AUTH_URL",
      async () => {
        const actions = await mailingActions();
        const combinations = hostileHeaders().flatMap(([label, headers]) =>
          originsOfRawClients().map(([origin, more]) => [`${label} and ${origin}`, { ...headers, ...more }] as const),
        );
        const since = await lastMail();
        const flood = Array.from({ length: 30 }, (_, i) => {
          const { name, action, stamp, honest } = actions[i % 2] as (typeof actions)[number];
          const [label, headers] = combinations[i % combinations.length] as (typeof combinations)[number];
          const address = `flood-${i}-${stamp}@example.com`;
          return { what: `${name} with ${label} (${i + 1} of 30)`, action, headers, address, honest };
        });
        const answers = await Promise.all(flood.map((f) => replay(f.action, f.address, f.headers)));
        let ran = 0;
        for (const [i, f] of flood.entries()) {
          const sent = sentHeaders(f.action, f.headers);
          await judge(answers[i] as RawAnswer, sent, { address: f.address, since, mails: true }, f.honest, f.what);
          if (actionRuns(sent)) ran++;
        }
        expect(ran).toBeGreaterThan(0);
      },
      STEP,
    );

    it(
      "magic link through a server action: the link from the mail catcher signs in, once",
      async () => {
        const page = await freshPage();
        const address = `reader-${major}-${Date.now()}@example.com`;
        await page.goto(`${demo.url}/login?callbackUrl=%2Faccount`);
        await page.fill('#email-form input[name="email"]', address);
        await Promise.all([page.waitForURL(/\/api\/auth\/verify-request/), page.click("#email-form button")]);

        await page.goto(`${demo.url}/dev/mail`);
        const message = page.locator("li.mail", { has: page.locator(".to", { hasText: address }) });
        expect(await message.count()).toBe(1);
        const link = message.locator('a[href*="/api/auth/callback/nodemailer"]');
        const href = (await link.getAttribute("href")) as string;
        await Promise.all([page.waitForURL(`${demo.url}/account`), link.click()]);
        expect(await sessionOnPage(page)).toMatchObject({ user: { email: address }, provider: "nodemailer" });

        await signOut(page);
        await page.goto(href);
        expect(page.url()).toMatch(/\/api\/auth\/error\?error=Verification/);
        expect(await whoIsSignedIn(page)).toBe("You are not signed in.");
      },
      STEP,
    );

    it(
      "passkey on the built-in page: a new address registers one, then signs in with it",
      async () => {
        const page = await freshPage();
        const cdp = await page.context().newCDPSession(page);
        const authenticatorId = await addVirtualPasskey(cdp);
        // Conditional (autofill) requests off: the button does the whole ceremony each time.
        await page.addInitScript(() => {
          PublicKeyCredential.isConditionalMediationAvailable = async () => false;
        });
        const address = `keyholder-${major}-${Date.now()}@example.com`;
        const passkeyButton = page.getByRole("button", { name: "Sign in with Passkey" });

        await page.goto(`${demo.url}/login?callbackUrl=%2Faccount`);
        await Promise.all([page.waitForURL(/\/api\/auth\/signin\?/), page.click("#builtin-signin")]);
        await page.fill("#input-email-for-passkey-provider", address);
        await Promise.all([page.waitForURL(`${demo.url}/account`), passkeyButton.click()]);
        expect(await sessionOnPage(page)).toMatchObject({ user: { email: address }, provider: "passkey" });
        const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
        expect(credentials).toHaveLength(1);
        await signOut(page);

        await page.goto(`${demo.url}/api/auth/signin?callbackUrl=%2Fprotected`);
        await page.fill("#input-email-for-passkey-provider", address);
        await Promise.all([page.waitForURL(`${demo.url}/protected`), passkeyButton.click()]);
        expect(await whoIsSignedIn(page)).toBe(`Signed in as ${address} (${address}) with passkey.`);
        const after = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
        expect(after.credentials[0]?.signCount).toBeGreaterThan(credentials[0]?.signCount ?? 0);
      },
      STEP,
    );

    it(
      "useSession: authenticated on a client page, the new name after update(), on the server too",
      async () => {
        const page = await freshPage();
        // The server action's redirect is a client-side navigation: the layout renders again with
        // the new session, and SessionProvider follows it without a page load.
        await page.goto(`${demo.url}/client`);
        expect(await page.textContent("#client-status")).toBe("unauthenticated");
        await signInWithPassword(page, "/client", `${demo.url}/client`);
        await page.waitForFunction(() => document.querySelector("#client-status")?.textContent === "authenticated");
        // A page load: SessionProvider starts with the session auth() gave the layout.
        await page.goto(`${demo.url}/client`);
        expect(await page.textContent("#client-status")).toBe("authenticated");
        expect(await page.textContent("#client-name")).toBe("Demo User");

        const name = `Renamed ${major}`;
        await page.fill('#rename input[aria-label="New name"]', name);
        await Promise.all([
          page.waitForResponse((r) => r.url() === `${demo.url}/api/auth/session` && r.request().method() === "POST"),
          page.click("#rename button"),
        ]);
        await page.waitForFunction(
          (expected) => document.querySelector("#client-name")?.textContent === expected,
          name,
        );
        // The re-issued cookie carries it: auth() on the server reads the new name.
        expect(await whoIsSignedIn(page)).toBe(`Signed in as ${name} (demo@example.com) with password.`);
      },
      STEP,
    );

    it(
      "a client signOut() in one tab is seen by the other tab, without a reload",
      async () => {
        const first = await freshPage();
        await signInWithPassword(first, "/", `${demo.url}/`);
        await first.goto(`${demo.url}/client`);
        const second = await first.context().newPage();
        await second.goto(`${demo.url}/client`);
        await expect.poll(() => second.textContent("#client-status")).toBe("authenticated");
        await expect.poll(() => first.textContent("#client-status")).toBe("authenticated");

        let reloaded = false;
        second.on("framenavigated", (frame) => {
          if (frame === second.mainFrame()) reloaded = true;
        });
        await first.click("#client-signout");
        await first.waitForFunction(() => document.querySelector("#client-status")?.textContent === "unauthenticated");
        await second.waitForFunction(() => document.querySelector("#client-status")?.textContent === "unauthenticated");
        expect(reloaded).toBe(false);
        await second.goto(`${demo.url}/protected`);
        expect(second.url()).toBe(`${demo.url}/login?callbackUrl=%2Fprotected`);
      },
      STEP,
    );

    // Last: it gives the demo user a second factor (and takes it away at the end).
    it(
      "authenticator app: enrolled on the account page, then asked after the password; wrong and replayed codes refused",
      async () => {
        const page = await freshPage();
        await signInWithPassword(page, "/account", `${demo.url}/account`);
        expect(await page.textContent("#totp-status")).toContain("off");

        await page.click("#totp-start button");
        const secret = ((await page.locator("#totp-secret").textContent()) ?? "").trim();
        expect(secret).toMatch(/^[A-Z2-7]{32}$/);
        expect(await page.locator("#totp-qr svg path").count()).toBe(1);
        const enrolStep = stepNow();
        const enrolCode = totpAt(secret, enrolStep);
        await page.fill('#totp-confirm input[name="code"]', enrolCode);
        await page.click("#totp-confirm button");
        // The action's answer: the backup codes, or a message if the code was refused.
        await page.waitForSelector("#backup-codes, #totp-message");
        expect(await page.locator("#totp-message").count()).toBe(0);
        const backupCodes = (await page.locator("#backup-codes code").allTextContents()).map((c) => c.trim());
        expect(backupCodes).toHaveLength(10);
        await page.goto(`${demo.url}/account`);
        expect(await page.textContent("#totp-status")).toContain("on");
        await signOut(page);

        // The password (server action) now leads to the built-in code page, with no session yet.
        const codePage = /\/api\/auth\/callback\/totp(\?|$)/;
        await signInWithPassword(page, "/account", codePage);
        const codeForm = page.locator('form[action$="/api/auth/callback/totp"]');
        const enter = async (code: string, landing: string | RegExp) => {
          await codeForm.locator('input[name="code"]').fill(code);
          await Promise.all([page.waitForURL(landing), codeForm.locator("button").click()]);
        };
        const refused = /\/api\/auth\/callback\/totp\?error=CredentialsSignin/;
        const wrong = String((Number(totpAt(secret, stepNow())) + 500_000) % 1_000_000).padStart(6, "0");
        await enter(wrong, refused);
        await enter(enrolCode, refused); // its time step is spent
        await enter(totpAt(secret, Math.max(stepNow(), enrolStep + 1)), `${demo.url}/account`);
        expect(await sessionOnPage(page)).toMatchObject({ provider: "credentials", amr: ["pwd", "otp"] });
        expect(await whoIsSignedIn(page)).toBe(
          "Signed in as Demo User (demo@example.com) with password and an authenticator app code.",
        );

        // Turned off with a backup code: the password alone signs in again.
        await page.goto(`${demo.url}/account`);
        await page.fill('#totp-disable input[name="code"]', backupCodes[0] as string);
        await page.click("#totp-disable button");
        expect(await page.locator("#totp-message").textContent()).toContain("turned off");
        await signOut(page);
        await signInWithPassword(page, "/account", `${demo.url}/account`);
        expect(await sessionOnPage(page)).toMatchObject({ amr: ["pwd"] });
      },
      2 * STEP,
    );

    it(
      "password accounts through server actions: sign-up, the mailed code, sign-in; a forgotten password's link resets it once, the old password fails and the other browser is signed out",
      async () => {
        const email = `next${major}-reset@example.com`;
        const page = await freshPage();
        await createAccount(page, email, "first passphrase 1");
        await passwordSignIn(page, email, "first passphrase 1", `${demo.url}/`);
        expect(await whoIsSignedIn(page)).toBe(`Signed in as ${email} (${email}) with password.`);
        const other = await freshPage();
        await passwordSignIn(other, email, "first passphrase 1", `${demo.url}/`);

        const asker = await freshPage();
        await asker.goto(`${demo.url}/forgot`);
        await asker.fill('#forgot-form input[name="email"]', email);
        await asker.click("#forgot-form button");
        await asker.locator("#forgot-form-notice").waitFor();
        const link = (await newestMail(asker, email, { link: "/reset?" })).links.find((l) => l.includes("/reset?"));
        expect(link).toBeDefined();
        await asker.goto(link ?? "");
        await submitAccountForm(
          asker,
          "#reset-form",
          { password: "second passphrase 2", confirm: "second passphrase 2" },
          `${demo.url}/login?reset=1`,
        );
        // Every session of the account ended; the old password fails, the new one signs in.
        await signedOutSoon(page);
        await signedOutSoon(other);
        await passwordRefused(asker, email, "first passphrase 1");
        await passwordSignIn(asker, email, "second passphrase 2", `${demo.url}/`);
        // The link worked once.
        const again = await freshPage();
        await again.goto(link ?? "");
        await again.fill('#reset-form input[name="password"]', "third passphrase 3");
        await again.fill('#reset-form input[name="confirm"]', "third passphrase 3");
        await again.click("#reset-form button");
        expect(await again.locator("#reset-form-error").textContent()).toContain("This reset link does not work");
      },
      STEP,
    );

    it(
      "change of password through a server action: a wrong current password is refused; then the other browser is signed out and this one stays signed in",
      async () => {
        const email = `next${major}-change@example.com`;
        const here = await freshPage();
        await createAccount(here, email, "first passphrase 1");
        await passwordSignIn(here, email, "first passphrase 1", `${demo.url}/`);
        const there = await freshPage();
        await passwordSignIn(there, email, "first passphrase 1", `${demo.url}/`);

        await here.goto(`${demo.url}/account/password`);
        await here.fill('#change-form input[name="currentPassword"]', "not the password");
        await here.fill('#change-form input[name="password"]', "second passphrase 2");
        await here.fill('#change-form input[name="confirm"]', "second passphrase 2");
        await here.click("#change-form button");
        expect(await here.locator("#change-form-error").textContent()).toBe("The current password is wrong.");

        await here.goto(`${demo.url}/account/password`);
        await submitAccountForm(
          here,
          "#change-form",
          { currentPassword: "first passphrase 1", password: "second passphrase 2", confirm: "second passphrase 2" },
          `${demo.url}/account?password=changed`,
        );
        await signedOutSoon(there);
        expect(await whoIsSignedIn(here)).toBe(`Signed in as ${email} (${email}) with password.`);
        await passwordRefused(there, email, "first passphrase 1");
      },
      STEP,
    );

    it(
      "attacks through the actions: one reset link submitted by two browsers at once sets one password; a cross-site or sibling-site post of the change action is refused",
      async () => {
        const email = `next${major}-attack@example.com`;
        const page = await freshPage();
        await createAccount(page, email, "first passphrase 1");
        await page.goto(`${demo.url}/forgot`);
        await page.fill('#forgot-form input[name="email"]', email);
        await page.click("#forgot-form button");
        await page.locator("#forgot-form-notice").waitFor();
        const link =
          (await newestMail(page, email, { link: "/reset?" })).links.find((l) => l.includes("/reset?")) ?? "";
        const racers = [await freshPage(), await freshPage()];
        for (const [i, racer] of racers.entries()) {
          await racer.goto(link);
          await racer.fill('#reset-form input[name="password"]', `racing passphrase ${i}`);
          await racer.fill('#reset-form input[name="confirm"]', `racing passphrase ${i}`);
        }
        const landed = await Promise.all(
          racers.map(async (racer) => {
            await racer.click("#reset-form button");
            await Promise.race([
              racer.waitForURL(`${demo.url}/login?reset=1`),
              racer.locator("#reset-form-error").waitFor(),
            ]);
            return racer.url() === `${demo.url}/login?reset=1`;
          }),
        );
        expect(landed.filter(Boolean)).toHaveLength(1);
        const winner = landed.indexOf(true);
        await passwordRefused(page, email, `racing passphrase ${1 - winner}`);
        await passwordSignIn(page, email, `racing passphrase ${winner}`, `${demo.url}/`);

        // The change form, posted as another site (or a sibling sub-domain) would: the browser's
        // own action request, sent again with hostile headers (route.fetch: a browser would not let
        // a page set them). Refused: no redirect, no cookie, the password unchanged, still signed in.
        const hostile = [
          { origin: "http://evil.example", "sec-fetch-site": "cross-site" },
          { origin: demo.url, "sec-fetch-site": "same-site" },
        ];
        for (const headers of hostile) {
          await page.goto(`${demo.url}/account/password`);
          const answered = new Promise<Record<string, string>>((resolve, reject) => {
            void page.route(`${demo.url}/account/password`, async (route) => {
              if (route.request().method() !== "POST") return route.continue();
              try {
                const response = await route.fetch({
                  headers: { ...(await route.request().allHeaders()), ...headers },
                });
                resolve(response.headers());
                await route.fulfill({ response });
              } catch (e) {
                reject(e);
              }
            });
          });
          await page.fill('#change-form input[name="currentPassword"]', `racing passphrase ${winner}`);
          await page.fill('#change-form input[name="password"]', "stolen passphrase 9");
          await page.fill('#change-form input[name="confirm"]', "stolen passphrase 9");
          await page.click("#change-form button");
          const answer = await answered;
          expect(answer["x-action-redirect"], JSON.stringify(headers)).toBeUndefined();
          expect(answer["set-cookie"] ?? "", JSON.stringify(headers)).not.toContain("authjs.session-token");
          await page.unroute(`${demo.url}/account/password`);
          expect(await whoIsSignedIn(page)).toBe(`Signed in as ${email} (${email}) with password.`);
        }
        const check = await freshPage();
        await passwordRefused(check, email, "stolen passphrase 9");
        await passwordSignIn(check, email, `racing passphrase ${winner}`, `${demo.url}/`);
      },
      STEP,
    );
  });

  // Security round 4, issue 34 item 1: `next build` loads lib/auth.ts once per server layer (Route
  // Handlers, Server Components, Server Actions, the proxy or middleware), each layer calling
  // NextAuth with an object of its own. With revocations and limits in memory (DEMO_REVOCATION=
  // memory: `revocation: true`; the default limiter), a sign-out or a reset through one layer was
  // unseen by the others, and each layer counted its own wrong passwords. The same build, served
  // by a second `next start` with its own data.
  describe.skipIf(!runs)(`the Next.js ${major} demo: one application across its server layers (in memory)`, () => {
    let layered: NextDemo;
    let chromium: Browser;
    const own: BrowserContext[] = [];
    const email = `next${major}-layers@example.com`;

    beforeAll(async () => {
      const [, launched] = await Promise.all([built(), launchChromium()]);
      chromium = launched;
      layered = await startNextDemo(appDirs[major], { DEMO_REVOCATION: "memory" });
    }, 600_000);
    afterAll(async () => {
      await Promise.all(own.map((c) => c.close()));
      await chromium?.close();
      await layered?.stop();
    });

    async function context(): Promise<BrowserContext> {
      const made = await chromium.newContext();
      own.push(made);
      made.setDefaultTimeout(15_000);
      return made;
    }

    /** What each layer says of the browser of `page`: a Server Component, a Route Handler, the proxy, a Server Action. */
    async function layers(page: Page): Promise<Record<string, string>> {
      await page.goto(`${layered.url}/`);
      const component = (await page.textContent("#who"))?.replace(/\s+/g, " ").trim() ?? "";
      const route = (await page.request.get(`${layered.url}/api/me`)).status();
      await page.goto(`${layered.url}/protected`);
      const proxy = page.url().startsWith(`${layered.url}/protected`) ? "let through" : "sent to sign in";
      return { component, route: String(route), proxy };
    }

    const signedIn = {
      component: `Signed in as ${email} (${email}) with password.`,
      route: "200",
      proxy: "let through",
    };
    const signedOut = { component: "You are not signed in.", route: "401", proxy: "sent to sign in" };

    /** The change-password Server Action from an /account/password page loaded while signed in: what it answers now. */
    async function actionAnswer(page: Page): Promise<string> {
      await page.fill('#change-form input[name="currentPassword"]', "layers passphrase 1");
      await page.fill('#change-form input[name="password"]', "never stored passphrase 7");
      await page.fill('#change-form input[name="confirm"]', "never stored passphrase 7");
      await page.click("#change-form button");
      return (await page.locator("#change-form-error").textContent()) ?? "";
    }

    /** The owner signed in (a Server Action) and a thief holding a copy of her cookies, its action page loaded. */
    async function ownerAndThief(password: string) {
      const owner = await (await context()).newPage();
      await owner.goto(`${layered.url}/login`);
      await owner.fill('#password-form input[name="email"]', email);
      await owner.fill('#password-form input[name="password"]', password);
      await Promise.all([owner.waitForURL(`${layered.url}/`), owner.click("#password-form button")]);
      const thiefContext = await context();
      await thiefContext.addCookies(await owner.context().cookies());
      const thief = await thiefContext.newPage();
      expect(await layers(thief)).toEqual(signedIn);
      const actionPage = await thiefContext.newPage();
      await actionPage.goto(`${layered.url}/account/password`);
      await actionPage.locator("#change-form").waitFor();
      return { owner, thief, actionPage };
    }

    it(
      "attack: after the owner signs out (a Server Action), a copy of her cookie is refused by a Server Component, a Route Handler, a Server Action and the proxy",
      async () => {
        const page = await (await context()).newPage();
        // The account, made through the sign-up and verification Server Actions (the mail catcher's code).
        await page.goto(`${layered.url}/signup`);
        for (const [name, value] of Object.entries({
          email,
          password: "layers passphrase 1",
          confirm: "layers passphrase 1",
        }))
          await page.fill(`#signup-form input[name="${name}"]`, value);
        await Promise.all([page.waitForURL(`${layered.url}/verify?sent=1`), page.click("#signup-form button")]);
        await page.goto(`${layered.url}/dev/mail`);
        const code = await page
          .locator("li.mail", { has: page.locator(".to", { hasText: email }) })
          .locator(".code")
          .first()
          .textContent();
        await page.goto(`${layered.url}/verify`);
        await page.fill('#verify-code-form input[name="code"]', code ?? "");
        await Promise.all([page.waitForURL(`${layered.url}/login?verified=1`), page.click("#verify-code-form button")]);

        const { owner, thief, actionPage } = await ownerAndThief("layers passphrase 1");
        await owner.goto(`${layered.url}/account`);
        await Promise.all([owner.waitForURL(`${layered.url}/`), owner.click("#nav-signout button")]);
        expect(await layers(thief)).toEqual(signedOut);
        expect(await actionAnswer(actionPage)).toBe("You are signed out: sign in again.");
      },
      STEP,
    );

    it(
      "attack: after a password reset through @latchkey/next/accounts, a copy of the cookie is refused by every layer",
      async () => {
        const { thief, actionPage } = await ownerAndThief("layers passphrase 1");
        const asker = await (await context()).newPage();
        await asker.goto(`${layered.url}/forgot`);
        await asker.fill('#forgot-form input[name="email"]', email);
        await asker.click("#forgot-form button");
        await asker.locator("#forgot-form-notice").waitFor();
        await asker.goto(`${layered.url}/dev/mail`);
        const link = await asker
          .locator("li.mail", { has: asker.locator(".to", { hasText: email }) })
          .locator('a[href*="/reset?"]')
          .first()
          .getAttribute("href");
        await asker.goto(new URL(link ?? "", layered.url).href);
        await asker.fill('#reset-form input[name="password"]', "layers passphrase 2");
        await asker.fill('#reset-form input[name="confirm"]', "layers passphrase 2");
        await Promise.all([asker.waitForURL(`${layered.url}/login?reset=1`), asker.click("#reset-form button")]);
        expect(await layers(thief)).toEqual(signedOut);
        expect(await actionAnswer(actionPage)).toBe("You are signed out: sign in again.");
      },
      STEP,
    );

    // Last: it spends the demo user's budget for the rest of the window.
    it(
      "attack: the limiter is not halved: 5 wrong passwords through the Route Handler, then the right one through the Server Action is refused",
      async () => {
        for (let i = 0; i < 5; i++) {
          const csrf = await fetch(`${layered.url}/api/auth/csrf`);
          const { csrfToken } = (await csrf.json()) as { csrfToken: string };
          const cookie = csrf.headers
            .getSetCookie()
            .map((c) => c.split(";")[0])
            .join("; ");
          const answer = await fetch(`${layered.url}/api/auth/callback/credentials`, {
            method: "POST",
            redirect: "manual",
            headers: { "content-type": "application/x-www-form-urlencoded", cookie },
            body: new URLSearchParams({ csrfToken, email: "demo@example.com", password: "wrong" }),
          });
          expect(answer.headers.get("location") ?? "").toMatch(/error=CredentialsSignin/);
        }
        const page = await (await context()).newPage();
        await page.goto(`${layered.url}/login`);
        await page.fill('#password-form input[name="email"]', "demo@example.com");
        await page.fill('#password-form input[name="password"]', "demo-password");
        await page.click("#password-form button");
        expect(await page.locator("#password-error").textContent()).toBe("Sign-in failed (RateLimited).");
        await page.goto(`${layered.url}/`);
        expect(await page.textContent("#who")).toBe("You are not signed in.");
      },
      STEP,
    );
  });
}
