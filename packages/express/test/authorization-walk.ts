/**
 * A browser's walk through Latchkey's authorization server served on `issuer` (Express tests):
 * the sign-in page (credentials "ada" / "lovelace"), back to the server, the consent page
 * (allowed), up to the client's redirect URI.
 */
import { MemoryAdapter } from "@latchkey/core/memory-adapter";
import type { AuthConfig } from "@latchkey/express";
import Credentials from "@latchkey/express/providers/credentials";
import type { Jar } from "./helpers.js";

/**
 * The application's configuration these walks sign in to: user u1 ("ada" / "lovelace", Ada
 * Lovelace) in a memory adapter, JWT sessions with revocation (an authorization server needs the
 * adapter: tokens name stored users).
 */
export async function adaConfig(secret: string): Promise<AuthConfig> {
  const adapter = MemoryAdapter();
  await adapter.createUser?.({ id: "u1", name: "Ada Lovelace", email: "ada@example.com", emailVerified: new Date(0) });
  return {
    secret,
    trustHost: true,
    adapter,
    session: { strategy: "jwt", revocation: true },
    providers: [
      Credentials({
        credentials: { username: {}, password: { type: "password" } },
        authorize: async ({ username, password }) =>
          username === "ada" && password === "lovelace"
            ? { id: "u1", name: "Ada Lovelace", email: "ada@example.com" }
            : null,
      }),
    ],
  };
}

/** Latchkey's sign-in page at `page`, signed in as "ada": answers the redirect to its callback URL. */
export async function signInAt(issuer: string, jar: Jar, page: URL): Promise<Response> {
  await jar.fetch(page.href);
  const { csrfToken } = (await (await jar.fetch(`${issuer}/auth/csrf`)).json()) as { csrfToken: string };
  return jar.fetch(`${issuer}/auth/callback/credentials`, {
    form: { csrfToken, username: "ada", password: "lovelace", callbackUrl: page.searchParams.get("callbackUrl") ?? "" },
  });
}

/**
 * The walk from an authorization URL to `redirect` (the client's redirect URI, a prefix): answers
 * the redirect's URL, with its code. `seen` receives each page's HTML (the consent page's).
 */
export async function browserWalk(
  issuer: string,
  redirect: string,
  jar: Jar,
  start: URL,
  seen: (html: string) => void = () => {},
): Promise<URL> {
  let response = await jar.fetch(start.href);
  for (let step = 0; step < 8; step++) {
    const location = response.headers.get("location");
    if (response.status === 302 && location) {
      const next = new URL(location, issuer);
      if (next.href.startsWith(redirect)) return next;
      if (next.pathname === "/auth/signin") {
        response = await signInAt(issuer, jar, next);
        continue;
      }
      response = await jar.fetch(next.href);
      continue;
    }
    const page = await response.text();
    seen(page);
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1] ?? "";
    if (!page.includes('name="interaction"'))
      throw new Error(`Unexpected page (${response.status}): ${page.slice(0, 300)}`);
    response = await jar.fetch(`${issuer}/oauth/consent`, {
      form: { interaction: field("interaction"), csrfToken: field("csrfToken"), decision: "allow" },
    });
  }
  throw new Error("The walk did not reach the redirect URI");
}
