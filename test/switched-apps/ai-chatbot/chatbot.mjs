// Drives Vercel's AI chatbot (vercel/ai-chatbot), as next-auth serves it or switched to Latchkey, in
// Chromium: node chatbot.mjs <port> <port of the other copy>. Both copies are served over HTTPS by
// https-server.mjs on one AUTH_SECRET and one database, with the fake gateway answering the model
// calls. See README.md.
import { chromium, request as httpClient } from "playwright-core";

const [port, other] = process.argv.slice(2);
if (!port || !other) {
  console.error("usage: node chatbot.mjs <port> <port of the other copy>");
  process.exit(2);
}
const base = `https://localhost:${port}`;
const elsewhere = `https://localhost:${other}`;
const cookieName = "__Secure-authjs.session-token";
// The machine is shared and loaded: a step may take long, so each wait is on its event, with a
// generous bound that only decides when to give up and report.
const patience = 90_000;
const stamp = Date.now();
const email = `chatbot-${port}-${stamp}@latchkey.test`;
const password = `pw-${stamp}-secret`;
const said = `hello from ${port} at ${stamp}`;

const results = [];
const check = (name, ok, detail = "") => {
  results.push({ name, ok: Boolean(ok) });
  console.log(`${ok ? "PASS" : "FAIL"} ${name}${ok ? "" : ` ${detail}`}`);
};
const settle = (promise) => promise.then(() => true).catch(() => false);

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
const newContext = () => browser.newContext({ ignoreHTTPSErrors: true });
const sessionCookie = async (context) => (await context.cookies(base)).find((c) => c.name === cookieName)?.value;
// Who the application says is signed in (its `/api/auth/session`, with the context's cookies). The
// cookie's value itself is no witness: next-auth seals the token again on every session read.
const sessionOf = async (page) => {
  const response = await page.request.get(`${base}/api/auth/session`);
  return response.ok() ? ((await response.json())?.user ?? null) : null;
};
const guestPattern = /^guest-\d+$/;
const userLabel = (page) =>
  page
    .getByTestId("user-email")
    .textContent({ timeout: patience })
    .catch(() => null);
const waitForUserLabel = (page, text) =>
  settle(page.getByTestId("user-email").filter({ hasText: text }).first().waitFor({ timeout: patience }));
/** Whether the page comes to show the fake gateway's answer to `text`. */
const answerShown = (page, text) =>
  settle(
    page
      .getByTestId("message-assistant")
      .filter({ hasText: `Fake gateway heard: ${text}` })
      .first()
      .waitFor({ timeout: patience }),
  );
const fillCredentials = async (page, address, secret) => {
  await page.getByPlaceholder("user@acme.com").fill(address);
  await page.getByLabel("Password").fill(secret);
};

try {
  // The proxy (proxy.ts, `getToken` with `secureCookie`) in front of every page, without a browser.
  const api = await httpClient.newContext({ ignoreHTTPSErrors: true });
  const bare = await api.get(`${base}/`, { maxRedirects: 0 });
  check(
    "the proxy sends a visitor without a cookie to the guest sign-in with the page as redirectUrl",
    bare.status() === 307 && (bare.headers().location ?? "").includes("/api/auth/guest?redirectUrl="),
    `${bare.status()} ${bare.headers().location}`,
  );

  // A client that is not a browser (a monitor, a link preview) sends neither Origin nor Fetch Metadata.
  const monitor = await api.get(`${base}/`);
  check(
    "a client sending neither Origin nor Sec-Fetch-Site follows the redirects to / as a guest",
    monitor.status() === 200 && new URL(monitor.url()).pathname === "/",
    `${monitor.status()} ${monitor.url()}`,
  );

  // A first visit makes a guest (the guest route's `signIn("guest", { redirectTo })`).
  const first = await newContext();
  const page = await first.newPage();
  await page.goto(`${base}/`);
  check(
    "a first visit is signed in as a guest and brought back to /",
    page.url() === `${base}/` && (await waitForUserLabel(page, "Guest")) && (await sessionCookie(first)),
    page.url(),
  );
  const guestCookie = await sessionCookie(first);
  const guest = await sessionOf(page);
  check(
    "the guest's session is a guest user's",
    guestPattern.test(guest?.email ?? "") && guest.type === "guest",
    JSON.stringify(guest),
  );
  const tampered = await api.get(`${base}/`, {
    maxRedirects: 0,
    headers: { cookie: `${cookieName}=${guestCookie.slice(0, -6)}AAAAAA` },
  });
  check(
    "a tampered session cookie is no session (the proxy sends it to the guest sign-in)",
    tampered.status() === 307 && (tampered.headers().location ?? "").includes("/api/auth/guest"),
    `${tampered.status()} ${tampered.headers().location}`,
  );
  const guestAgain = await api.get(`${base}/api/auth/guest`, {
    maxRedirects: 0,
    headers: { cookie: `${cookieName}=${guestCookie}` },
  });
  check(
    "the guest route sends a visitor who has a session to / (its own getToken reads the cookie)",
    guestAgain.status() === 307 && new URL(guestAgain.headers().location ?? "/x", base).pathname === "/",
    `${guestAgain.status()} ${guestAgain.headers().location}`,
  );

  // A guest may chat (the chat route's `auth()` on a guest's session).
  await page.getByTestId("multimodal-input").fill(`guest ${said}`);
  await page.getByTestId("send-button").click();
  check("a guest's chat turn is answered through the gateway", await answerShown(page, `guest ${said}`));

  // Register (a server action: createUser, then `signIn("credentials", { redirect: false })`).
  await page.goto(`${base}/register`);
  check("a guest may open /register", page.url() === `${base}/register`, page.url());
  await fillCredentials(page, email, password);
  await page.getByRole("button", { name: "Sign Up" }).click();
  const registered = await settle(page.waitForURL(`${base}/`, { timeout: patience }));
  check(
    "registering signs the new user in and the proxy moves them from /register to /",
    registered && (await waitForUserLabel(page, email)),
    `${page.url()} ${await userLabel(page)}`,
  );
  const registeredUser = await sessionOf(page);
  check(
    "the session is now the new user's, not the guest's",
    registeredUser?.email === email && registeredUser.type === "regular" && registeredUser.id !== guest?.id,
    JSON.stringify(registeredUser),
  );
  await page.goto(`${base}/login`);
  check("a signed-in user on /login is sent to / by the proxy", page.url() === `${base}/`, page.url());

  // A chat turn: the chat route's `auth()`, the model through the (fake) gateway, the messages saved.
  await page.getByTestId("multimodal-input").fill(said);
  await page.getByTestId("send-button").click();
  const answered = await answerShown(page, said);
  check("a chat turn as the signed-in user is answered through the gateway", answered);
  const chatUrl = await settle(page.waitForURL(/\/chat\/[0-9a-f-]{36}$/, { timeout: patience })).then(() => page.url());
  await page.goto(chatUrl);
  const kept = await answerShown(page, said);
  check("the chat page (private, owner checked with auth()) shows the saved turn after a reload", kept, chatUrl);
  const history = await page.request.get(`${base}/api/history?limit=10`);
  const listed = history.ok() ? ((await history.json()).chats ?? []).map((chat) => chat.id) : [];
  check(
    "the history API (auth() in a route handler) lists the chat",
    listed.includes(chatUrl.split("/").at(-1)),
    `${history.status()} ${listed.join(",")}`,
  );

  // The other library reads this library's session on the same secret.
  const there = await first.newPage();
  const reached = await settle(there.goto(`${elsewhere}${new URL(chatUrl).pathname}`));
  const readThere = reached && (await answerShown(there, said));
  check(
    `the other copy (port ${other}) reads the session: the user's private chat opens there`,
    readThere && (await waitForUserLabel(there, email)),
    reached ? there.url() : `${elsewhere} did not answer`,
  );
  await there.close();

  // Sign-out (the client's `signOut({ redirectTo: "/" })`), after which the proxy makes a new guest.
  await page.goto(`${base}/`);
  await waitForUserLabel(page, email);
  // The sidebar starts collapsed (no `sidebar_state` cookie): open it, as the app's own tests do.
  await page.getByTestId("sidebar-toggle-button").click();
  await page.getByTestId("user-nav-button").click();
  await page.getByTestId("user-nav-item-auth").click();
  const signedOut = await waitForUserLabel(page, "Guest");
  const afterSignOut = await sessionOf(page);
  check(
    "sign-out ends the user's session; the next page is a new guest's",
    signedOut && guestPattern.test(afterSignOut?.email ?? "") && afterSignOut.id !== guest?.id,
    `${page.url()} ${await userLabel(page)}`,
  );
  await page.goto(chatUrl);
  const refused = await settle(page.getByText("This page could not be found").first().waitFor({ timeout: patience }));
  check(
    "after sign-out the user's private chat is not found",
    refused && !(await page.textContent("body")).includes(`Fake gateway heard: ${said}`),
  );
  await first.close();

  // A first visit by a link on another site: the navigation to the app, its redirect to the guest
  // route and that route's `signIn("guest")` are all `Sec-Fetch-Site: cross-site`.
  const linked = await newContext();
  const visitor = await linked.newPage();
  await visitor.route("https://elsewhere.example/", (route) =>
    route.fulfill({ contentType: "text/html", body: `<a id="to-app" href="${base}/">the chatbot</a>` }),
  );
  await visitor.goto("https://elsewhere.example/");
  await visitor.click("#to-app");
  const arrived = await settle(visitor.waitForURL(`${base}/`, { timeout: patience }));
  check(
    "a first visit by a link from another site is signed in as a guest and lands on /",
    arrived && (await waitForUserLabel(visitor, "Guest")),
    visitor.url(),
  );
  await linked.close();

  // A wrong password, then the right one, in a fresh browser.
  const second = await newContext();
  const again = await second.newPage();
  await again.goto(`${base}/login`);
  check(
    "a visitor to /login is made a guest and brought back to /login",
    again.url() === `${base}/login` && (await sessionCookie(second)),
    again.url(),
  );
  const beforeWrong = await sessionOf(again);
  await fillCredentials(again, email, `${password}-wrong`);
  await again.getByRole("button", { name: "Sign in" }).click();
  const toldWrong = await settle(again.getByText("Invalid credentials!").first().waitFor({ timeout: patience }));
  const afterWrong = await sessionOf(again);
  check(
    "a wrong password answers 'Invalid credentials!' and leaves the guest's session as it was",
    toldWrong &&
      again.url() === `${base}/login` &&
      guestPattern.test(beforeWrong?.email ?? "") &&
      afterWrong?.id === beforeWrong.id,
    `told: ${toldWrong}, at ${again.url()}, session ${JSON.stringify(beforeWrong)} then ${JSON.stringify(afterWrong)}`,
  );
  await fillCredentials(again, email, password);
  await again.getByRole("button", { name: "Sign in" }).click();
  const signedIn = await settle(again.waitForURL(`${base}/`, { timeout: patience }));
  check(
    "signing in with the right password lands on / as the user",
    signedIn && (await waitForUserLabel(again, email)),
    `${again.url()} ${await userLabel(again)}`,
  );
  const session = await again.request.get(`${base}/api/auth/session`);
  const body = session.ok() ? await session.json() : {};
  check(
    "/api/auth/session carries the callbacks' id and type",
    body?.user?.email === email && body.user.type === "regular" && /^[0-9a-f-]{36}$/.test(body.user.id ?? ""),
    JSON.stringify(body),
  );
  await second.close();
  await api.dispose();
} catch (error) {
  check("no exception", false, String(error?.stack ?? error));
}
await browser.close();
const passed = results.filter((result) => result.ok).length;
console.log(`${passed} of ${results.length} passed on ${port}`);
process.exitCode = passed === results.length ? 0 : 1;
