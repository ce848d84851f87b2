// The Pages Router forms of auth(): `auth(req, res)` in an API route and `auth(context)` in
// getServerSideProps, over a real Node HTTP server (the objects Next.js hands those functions).
import "./next-internals.js";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { NextAuth, type NextAuthConfig } from "@latchkey/next";
import Credentials from "@latchkey/next/providers/credentials";
import { NextRequest } from "next/server.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Jar } from "./support.js";

const config: NextAuthConfig = {
  secret: "a-test-secret-of-at-least-thirty-two-characters",
  session: { updateAge: 0 },
  providers: [
    Credentials({
      credentials: { email: {}, password: {} },
      authorize: async (c) => (c.password === "right" ? { id: "u1", email: String(c.email) } : null),
    }),
  ],
};
const { handlers, auth } = NextAuth(config);

let url = "";
let server: ReturnType<typeof createServer>;

beforeAll(async () => {
  server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const session = req.url === "/context" ? await auth({ req, res } as never) : await auth(req, res);
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ email: session?.user?.email ?? null }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://localhost:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function signedIn(): Promise<Jar> {
  const jar = new Jar();
  const csrf = await handlers.GET(new NextRequest(`${url}/api/auth/csrf`));
  jar.apply(csrf.headers.getSetCookie());
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await handlers.POST(
    new NextRequest(`${url}/api/auth/callback/credentials`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header() },
      body: new URLSearchParams({ csrfToken, email: "ada@example.com", password: "right" }),
    }),
  );
  jar.apply(res.headers.getSetCookie());
  return jar;
}

describe("Pages Router", () => {
  it("auth(req, res) reads the session and renews its cookie on the response", async () => {
    const jar = await signedIn();
    const res = await fetch(`${url}/api`, { headers: { cookie: jar.header() } });
    expect(await res.json()).toEqual({ email: "ada@example.com" });
    expect(res.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token="))).toBe(true);
    expect(res.headers.get("cache-control")).toBe("private, no-cache, no-store");
  });

  it("auth({ req, res }) of getServerSideProps does the same", async () => {
    const jar = await signedIn();
    const res = await fetch(`${url}/context`, { headers: { cookie: jar.header() } });
    expect(await res.json()).toEqual({ email: "ada@example.com" });
  });

  it("gives null to a signed-out request", async () => {
    const res = await fetch(`${url}/api`);
    expect(await res.json()).toEqual({ email: null });
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(res.headers.get("cache-control")).toBeNull();
  });
});
