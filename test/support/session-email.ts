/**
 * The e-mail of the session a database session cookie carries, as `GET /auth/session` answers it
 * through `Auth()` (null when signed out): what the session-cache tests of several packages read.
 */
import { Auth, type AuthConfig } from "@latchkey/core";
import { expect } from "vitest";

export async function sessionEmailOf(config: AuthConfig, sessionToken: string): Promise<string | null> {
  const response = await Auth(
    new Request("http://app.test/auth/session", { headers: { cookie: `authjs.session-token=${sessionToken}` } }),
    config,
  );
  expect(response.status).toBe(200);
  return ((await response.json()) as { user?: { email?: string } } | null)?.user?.email ?? null;
}
