// Drives the Next.js Learn course's final dashboard (vercel/next-learn, dashboard/final-example), as
// next-auth serves it or switched to Latchkey, in Chromium: node dashboard.mjs <port> [<port of the
// other copy>]. See README.md.
import { chromium } from "playwright-core";

const [port, other] = process.argv.slice(2);
const base = `http://localhost:${port}`;
const results = [];
const check = (name, ok, detail = "") => {
  results.push({ name, ok });
  console.log(`${ok ? "PASS" : "FAIL"} ${name} ${ok ? "" : detail}`);
};
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
const context = await browser.newContext();
const page = await context.newPage();
const logIn = async (password) => {
  await page.fill("#email", "user@nextmail.com");
  await page.fill("#password", password);
  await page.getByRole("button", { name: /Log in/ }).click();
};
try {
  await page.goto(`${base}/dashboard/invoices`);
  check(
    "the proxy sends a visitor to /login with the page as callbackUrl",
    page.url().startsWith(`${base}/login?callbackUrl=`) && page.url().includes("invoices"),
    page.url(),
  );
  await logIn("wrong-password");
  await page.waitForSelector("text=Invalid credentials.", { timeout: 20000 }).catch(() => {});
  check(
    "a wrong password answers 'Invalid credentials.' (AuthError CredentialsSignin)",
    (await page.textContent("body"))?.includes("Invalid credentials."),
  );
  check("a wrong password signs nobody in", !(await context.cookies()).some((c) => c.name.endsWith("session-token")));
  await logIn("123456");
  await page.waitForURL(`${base}/dashboard/invoices`, { timeout: 30000 }).catch(() => {});
  check(
    "the server-action sign-in returns to the callbackUrl",
    page.url() === `${base}/dashboard/invoices`,
    page.url(),
  );
  await page.goto(`${base}/`);
  check(
    "the authorized callback's own redirect (signed in, on /) is followed",
    page.url() === `${base}/dashboard`,
    page.url(),
  );
  await page.goto(`${base}/dashboard/invoices/create`);
  await page.selectOption("#customer", { index: 1 });
  await page.fill("#amount", "42");
  await page.check("#pending");
  await page.getByRole("button", { name: "Create Invoice" }).click();
  await page.waitForURL(`${base}/dashboard/invoices`, { timeout: 30000 }).catch(() => {});
  check(
    "a server action on a protected page runs (invoice created)",
    page.url() === `${base}/dashboard/invoices` && (await page.textContent("body"))?.includes("$42.00"),
    page.url(),
  );
  if (other) {
    const there = await context.newPage();
    await there.goto(`http://localhost:${other}/dashboard`);
    check(
      `the session cookie opens on the other library (port ${other})`,
      there.url() === `http://localhost:${other}/dashboard`,
      there.url(),
    );
    await there.close();
  }
  await page.goto(`${base}/dashboard`);
  await page.getByRole("button", { name: /Sign Out/ }).click();
  await page.waitForURL(`${base}/`, { timeout: 30000 }).catch(() => {});
  check("sign-out (server action) lands on /", page.url() === `${base}/`, page.url());
  await page.goto(`${base}/dashboard`);
  check(
    "after sign-out the proxy sends /dashboard to /login again",
    page.url().startsWith(`${base}/login`),
    page.url(),
  );
} catch (e) {
  check("no exception", false, String(e));
}
await browser.close();
console.log(`${results.filter((x) => x.ok).length} of ${results.length} passed on ${port}`);
