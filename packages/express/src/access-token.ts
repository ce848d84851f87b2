/** `getAccessToken` for Express: reads the request's session, writes any re-issued cookie to `res`. */
import type { ServerResponse } from "node:http";
import type { AuthConfig } from "@latchkey/core";
import * as core from "@latchkey/core/access-token";
import { type ExpressRequestLike, sessionRequest } from "./convert.js";

/**
 * A valid access token of a provider for the signed-in user of `req`, refreshed first when it
 * expires within the skew (one refresh for all concurrent requests and instances); null when
 * nobody is signed in. A JWT session re-issued with the new tokens is set on `res`, also when
 * `RefreshTokenRevoked` is thrown (the session then remembers the refusal). Call it before the
 * response is sent.
 *
 * @example
 * ```ts
 * app.get("/calendar", async (req, res) => {
 *   const token = await getAccessToken(req, res, config, { provider: "google" })
 *   if (!token) return res.redirect("/auth/signin")
 *   res.json(await (await fetch(CALENDAR_URL, { headers: { authorization: `Bearer ${token.accessToken}` } })).json())
 * })
 * ```
 */
export async function getAccessToken(
  req: ExpressRequestLike,
  res: ServerResponse,
  config: AuthConfig,
  options: Omit<core.GetAccessTokenOptions, "env">,
): Promise<core.AccessToken | null> {
  let cookies: string[] = [];
  try {
    const token = await core.getAccessToken(sessionRequest(req), config, { ...options, env: process.env });
    cookies = token?.setCookie ?? [];
    return token;
  } catch (e) {
    if (e instanceof core.RefreshTokenRevoked) cookies = e.setCookie;
    throw e;
  } finally {
    if (cookies.length && !res.headersSent) res.appendHeader("Set-Cookie", cookies);
  }
}
