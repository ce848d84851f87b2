// Drives Auth.js's App Router example (apps/examples/nextjs), as next-auth serves it or switched to
// Latchkey, in Chromium: node app-router.mjs <port> [<port of the other copy>]. See README.md.
import { chromium } from "playwright-core";

const [port, other] = process.argv.slice(2);
const base = `http://localhost:${port}`;
// The local OpenID Provider of idp.mjs, which the example's Keycloak provider is pointed at.
const idpPort = process.env.IDP_PORT ?? "4199";
const results = [];
const check = (name, ok, detail = "") => {
  results.push({ name, ok });
  console.log(`${ok ? "PASS" : "FAIL"} ${name} ${ok ? "" : detail}`);
};
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
const context = await browser.newContext();
const page = await context.newPage();
try {
  await page.goto(`${base}/middleware-example`);
  check("middleware redirects a visitor to the sign-in page", page.url().startsWith(`${base}/auth/signin`), page.url());
  check(
    "protected API refuses a visitor",
    (await (await context.request.get(`${base}/api/protected`)).status()) === 401,
  );
  await page.getByRole("button", { name: /Keycloak/ }).click();
  await page.waitForURL((url) => url.port === idpPort);
  await page.fill('input[name="login"]', "bob");
  await page.fill('input[name="password"]', "bob");
  await page.click('button[type="submit"]');
  await page
    .waitForURL((u) => u.href.startsWith(base) && !u.pathname.startsWith("/auth/"), { timeout: 30000 })
    .catch(() => {});
  check("OIDC sign-in returns to the protected page", page.url() === `${base}/middleware-example`, page.url());
  const body = await page.textContent("body");
  check("middleware lets the signed-in user through", /Middleware/.test(body ?? "") && !page.url().includes("signin"));
  const session = await (await context.request.get(`${base}/auth/session`)).json();
  check("session endpoint names the user", session?.user?.email === "bob@idp.example", JSON.stringify(session));
  const api = await context.request.get(`${base}/api/protected`);
  check(
    "protected API answers the signed-in user",
    api.status() === 200 && (await api.json()).data === "Protected data",
  );
  await page.goto(`${base}/server-example`);
  check("server component sees the session", (await page.textContent("body"))?.includes("bob@idp.example"));
  await page.goto(`${base}/client-example`);
  await page
    .waitForFunction(() => document.body.textContent.includes("bob@idp.example"), null, { timeout: 20000 })
    .catch(() => {});
  check("useSession sees the session", (await page.textContent("body"))?.includes("bob@idp.example"));
  const input = page.getByPlaceholder("New name");
  await input.fill("Robert Renamed");
  await page.getByRole("button", { name: "Update" }).click();
  await page
    .waitForFunction(() => document.body.textContent.includes("Robert Renamed"), null, { timeout: 20000 })
    .catch(() => {});
  check("update() renames the user client-side", (await page.textContent("body"))?.includes("Robert Renamed"));
  const after = await (await context.request.get(`${base}/auth/session`)).json();
  check(
    "the jwt callback's update is kept in the session cookie",
    after?.user?.name === "Robert Renamed",
    JSON.stringify(after),
  );
  if (other) {
    const crossed = await (await context.request.get(`http://localhost:${other}/auth/session`)).json();
    check(
      `the session cookie opens on the other library (port ${other})`,
      crossed?.user?.email === "bob@idp.example",
      JSON.stringify(crossed),
    );
  }
  await page.goto(`${base}/`);
  await page
    .locator("header button")
    .last()
    .click()
    .catch(() => {});
  const signOut = page.getByRole("button", { name: "Sign Out" });
  if (await signOut.count()) {
    await signOut.first().click();
    await page.waitForLoadState("networkidle");
  }
  const gone = await (await context.request.get(`${base}/auth/session`)).json();
  check("sign-out (server action) ends the session", gone === null || !gone?.user, JSON.stringify(gone));
  await page.goto(`${base}/middleware-example`);
  check("after sign-out the middleware redirects again", page.url().startsWith(`${base}/auth/signin`), page.url());
} catch (e) {
  check("no exception", false, String(e));
}
await browser.close();
console.log(`${results.filter((x) => x.ok).length} of ${results.length} passed on ${port}`);
