/**
 * `@latchkey/sveltekit` in a SvelteKit application as Vite and adapter-node build it (the
 * SvelteKit demo, built once per vitest run): `handle` serving `/auth`, `event.locals.auth()`, the
 * `signIn` and `signOut` form actions, and what an attacker sends (planted cookies, a repeated
 * `csrfToken`, hostile `Host` headers, cross-site form posts, many sign-ins at once).
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type DemoProcess, startDemoProcess } from "../../../examples/express-demo/test/support.js";
import { Jar } from "../../../test/frameworks/http.js";
import { buildSvelteKitDemo, svelteKitServer } from "../../../test/frameworks/sveltekit-build.js";

const EMAIL = "demo@example.com";
const PASSWORD = "demo-password";

let demo: DemoProcess;
beforeAll(async () => {
  await buildSvelteKitDemo();
  demo = await startDemoProcess({}, undefined, svelteKitServer);
}, 180_000 * inject("timeScale"));
afterAll(() => demo?.stop());

/** What the home page (`event.locals.auth()`) says about the browser holding `jar`. */
async function who(jar: Jar): Promise<string> {
  const html = await (await jar.fetch(`${demo.url}/`)).text();
  return (/<p id="who">([\s\S]*?)<\/p>/.exec(html)?.[1] ?? "")
    .replace(/<[^>]+>|\s+/g, (m) => (m[0] === "<" ? "" : " "))
    .trim();
}

/** Posts the login page's form action `action` (`signin`, `signout`) as a browser on the demo's origin. */
function formAction(jar: Jar, action: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  return jar.fetch(`${demo.url}/login?/${action}`, {
    form,
    headers: { origin: demo.url, accept: "text/html", ...headers },
  });
}

const passwordForm = (password = PASSWORD) => ({
  providerId: "credentials",
  redirectTo: "/protected",
  email: EMAIL,
  password,
});

/** A sign-in through `handle`: the CSRF token of `/auth/csrf`, then the credentials callback. */
async function builtInSignIn(jar: Jar, body?: string) {
  const { csrfToken } = (await (await jar.fetch(`${demo.url}/auth/csrf`)).json()) as { csrfToken: string };
  return jar.fetch(`${demo.url}/auth/callback/credentials`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: demo.url },
    body: body ?? new URLSearchParams({ csrfToken, email: EMAIL, password: PASSWORD }).toString(),
  });
}

describe("handle and event.locals.auth()", () => {
  it("serves the actions under /auth and reads the session they set on every page", async () => {
    const jar = new Jar();
    expect(await who(jar)).toBe("You are not signed in.");
    const response = await builtInSignIn(jar);
    expect(response.status).toBe(302);
    expect(await who(jar)).toBe("Signed in as Demo User (demo@example.com) with password.");
    const session = await (await jar.fetch(`${demo.url}/auth/session`)).json();
    expect(session).toMatchObject({ user: { email: EMAIL } });
  });

  it("leaves every other path to the application: a guarded page sends a visitor to sign in", async () => {
    const response = await fetch(`${demo.url}/protected`, { redirect: "manual" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/auth/signin?callbackUrl=%2Fprotected");
  });
});

describe("signIn and signOut form actions", () => {
  it("a wrong password reaches the action as CredentialsSignin with its code, and sets no session", async () => {
    const jar = new Jar();
    const response = await formAction(jar, "signin", passwordForm("wrong"));
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('id="action-error">CredentialsSignin (credentials)</p>');
    expect(jar.cookies.has("authjs.session-token")).toBe(false);
    expect(await who(jar)).toBe("You are not signed in.");
  });

  it("the right password redirects with SvelteKit's redirect and sets the session through event.cookies; signOut ends it", async () => {
    const jar = new Jar();
    const response = await formAction(jar, "signin", passwordForm());
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`${demo.url}/protected`);
    expect(await who(jar)).toBe("Signed in as Demo User (demo@example.com) with password.");
    const out = await formAction(jar, "signout", { redirectTo: "/login" });
    expect(out.status).toBe(303);
    expect(out.headers.get("location")).toBe(`${demo.url}/login`);
    expect(await who(jar)).toBe("You are not signed in.");
  });
});

describe("what an attacker sends", () => {
  it("a planted session cookie is no session: the home page reads none, the guarded page sends to sign-in", async () => {
    const jar = new Jar();
    jar.cookies.set("authjs.session-token", "planted.value.of.attacker");
    expect(await who(jar)).toBe("You are not signed in.");
    expect((await jar.fetch(`${demo.url}/protected`)).status).toBe(303);
  });

  it("a planted CSRF cookie neither breaks nor carries a form action: the action's own token replaces it", async () => {
    const jar = new Jar();
    jar.cookies.set("authjs.csrf-token", "attacker-token%7Cattacker-hash");
    const response = await formAction(jar, "signin", passwordForm());
    expect(response.status).toBe(303);
    expect(await who(jar)).toBe("Signed in as Demo User (demo@example.com) with password.");
  });

  it("a repeated csrfToken field counts once (the first): a second value cannot stand in for it", async () => {
    const jar = new Jar();
    const { csrfToken } = (await (await jar.fetch(`${demo.url}/auth/csrf`)).json()) as { csrfToken: string };
    const response = await builtInSignIn(
      jar,
      `csrfToken=forged&csrfToken=${csrfToken}&email=${EMAIL}&password=${PASSWORD}`,
    );
    expect(response.headers.get("location")).toMatch(/error=MissingCSRF/);
    expect(await who(jar)).toBe("You are not signed in.");
  });

  it("a form action posted from another site is refused: by SvelteKit for a foreign Origin, by Latchkey for Sec-Fetch-Site", async () => {
    const jar = new Jar();
    const foreign = await formAction(jar, "signin", passwordForm(), { origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    const crossSite = await formAction(jar, "signin", passwordForm(), { "sec-fetch-site": "cross-site" });
    expect(crossSite.status).toBe(400);
    expect(await crossSite.text()).toContain('id="action-error">MissingCSRF</p>');
    expect(await who(jar)).toBe("You are not signed in.");
  });

  it("attack: a sibling sub-domain's form action (Sec-Fetch-Site: same-site) is another origin, refused by Latchkey; same-origin signs in", async () => {
    const jar = new Jar();
    const sibling = await formAction(jar, "signin", passwordForm(), { "sec-fetch-site": "same-site" });
    expect(sibling.status).toBe(400);
    expect(await sibling.text()).toContain('id="action-error">MissingCSRF</p>');
    expect(await who(jar)).toBe("You are not signed in.");
    const own = await formAction(jar, "signin", passwordForm(), { "sec-fetch-site": "same-origin" });
    expect(own.status).toBe(303);
    expect(await who(jar)).toBe("Signed in as Demo User (demo@example.com) with password.");
  });

  it("a hostile Host header gets no 5xx and puts no foreign host in links (SvelteKit's ORIGIN decides)", async () => {
    for (const host of ["evil.example", "evil.example/../x", "[::1"]) {
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(`${demo.url}/auth/signin`, { headers: { host } }, (res) => {
          let body = "";
          res.on("data", (chunk) => (body += chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.once("error", reject);
        req.end();
      });
      expect(status).toBeLessThan(500);
      expect(body).not.toContain("evil.example");
    }
  });

  it("30 form-action sign-ins at once from one address: the per-account-and-address limit (5) holds, each success its own session, the rest a clear RateLimited", async () => {
    const fresh = await startDemoProcess({}, undefined, svelteKitServer);
    try {
      const jars = Array.from({ length: 30 }, () => new Jar());
      const answers = await Promise.all(
        jars.map((jar) =>
          jar.fetch(`${fresh.url}/login?/signin`, {
            form: passwordForm(),
            headers: { origin: fresh.url, accept: "text/html" },
          }),
        ),
      );
      const signedIn = jars.filter((_, i) => answers[i]?.status === 303);
      expect(signedIn).toHaveLength(5);
      const refused = answers.filter((r) => r.status !== 303);
      expect(refused.map((r) => r.status)).toEqual(refused.map(() => 400));
      for (const r of refused) expect(await r.text()).toContain('id="action-error">RateLimited</p>');
      expect(new Set(signedIn.map((jar) => jar.cookies.get("authjs.session-token"))).size).toBe(5);
      for (const jar of signedIn) {
        const session = await (await jar.fetch(`${fresh.url}/auth/session`)).json();
        expect(session).toMatchObject({ user: { email: EMAIL } });
      }
    } finally {
      await fresh.stop();
    }
  });
});
