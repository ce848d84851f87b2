// Drives Auth.js's Pages Router example (apps/examples/nextjs-pages), as next-auth serves it or
// switched to Latchkey, in Chromium, signed in by a session cookie sealed with Auth.js's own encoder
// (its only provider is GitHub): AUTH_SECRET=... node pages-router.mjs <port>. See README.md.

import { encode } from "@auth/core/jwt";
import { chromium } from "playwright-core";

const [port] = process.argv.slice(2);
const base = `http://localhost:${port}`;
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
  check(
    "middleware redirects a visitor to the sign-in page",
    page.url().startsWith(`${base}/api/auth/signin`),
    page.url(),
  );
  const signin = await context.request.get(`${base}/api/auth/signin`);
  check("the sign-in page offers GitHub", signin.status() === 200 && (await signin.text()).includes("GitHub"));
  const now = Math.floor(Date.now() / 1000);
  const token = await encode({
    token: { name: "Grace", email: "grace@example.com", sub: "gh-42", iat: now, exp: now + 3600 },
    secret: process.env.AUTH_SECRET,
    salt: "authjs.session-token",
  });
  await context.addCookies([
    { name: "authjs.session-token", value: token, domain: "localhost", path: "/", httpOnly: true, sameSite: "Lax" },
  ]);
  const session = await (await context.request.get(`${base}/api/auth/session`)).json();
  check("a session sealed by next-auth is read", session?.user?.email === "grace@example.com", JSON.stringify(session));
  await page.goto(`${base}/middleware-example`);
  check("middleware lets the signed-in user through", page.url() === `${base}/middleware-example`, page.url());
  await page.goto(`${base}/server-example`);
  check("getServerSideProps sees the session", (await page.textContent("body"))?.includes("grace@example.com"));
  await page.goto(`${base}/client-example`);
  await page
    .waitForFunction(() => document.body.textContent.includes("grace@example.com"), null, { timeout: 20000 })
    .catch(() => {});
  check(
    "the nested SessionProvider shows the session",
    (await page.textContent("body"))?.includes("grace@example.com"),
  );
  const input = page.getByPlaceholder("New name");
  if (await input.count()) {
    await input.fill("Grace Renamed");
    await page.getByRole("button", { name: "Update" }).click();
    await page
      .waitForFunction(() => document.body.textContent.includes("Grace Renamed"), null, { timeout: 20000 })
      .catch(() => {});
    check("update() renames the user client-side", (await page.textContent("body"))?.includes("Grace Renamed"));
  }
  await page.goto(`${base}/api-example`);
  await page
    .waitForFunction(
      () =>
        document.body.textContent.includes("Protected data") || document.body.textContent.includes("Not authenticated"),
      null,
      { timeout: 20000 },
    )
    .catch(() => {});
  check("API route sees the session", (await page.textContent("body"))?.includes("Protected data"));
  const csrf = (await (await context.request.get(`${base}/api/auth/csrf`)).json()).csrfToken;
  await context.request.post(`${base}/api/auth/signout`, { form: { csrfToken: csrf } });
  const gone = await (await context.request.get(`${base}/api/auth/session`)).json();
  check("sign-out ends the session", gone === null || !gone?.user, JSON.stringify(gone));
  await page.goto(`${base}/middleware-example`);
  check("after sign-out the middleware redirects again", page.url().startsWith(`${base}/api/auth/signin`), page.url());
} catch (e) {
  check("no exception", false, String(e));
}
await browser.close();
console.log(`${results.filter((x) => x.ok).length} of ${results.length} passed on ${port}`);
