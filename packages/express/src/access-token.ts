/** `getAccessToken` for Express: reads the request's session, writes any re-issued cookie to `res`. */
import type { ServerResponse } from "node:http";
import type { AuthConfig } from "@latchkey/core";
import * as core from "@latchkey/core/access-token";
import { appendCookies, type ExpressRequestLike, sessionRequest } from "./convert.js";

/**
 * A valid access token of a provider for the signed-in user of `req`, refreshed first when it
 * expires within the skew (one refresh for all concurrent requests and instances); null when
 * nobody is signed in. A JWT session re-issued with the new tokens is set on `res`, also when
 * `RefreshTokenRevoked` is thrown (the session then remembers the refusal). Call it before the
 * response is sent: once its headers are out, a JWT session that needs a refresh throws
 * `ResponseAlreadySent` without asking the provider (the rotated refresh token would be lost with
 * the cookie that cannot be set).
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
  options: Omit<core.GetAccessTokenOptions, "env" | "canSetCookies">,
): Promise<core.AccessToken | null> {
  let cookies: string[] = [];
  try {
    const token = await core.getAccessToken(sessionRequest(req), config, {
      ...options,
      canSetCookies: !res.headersSent,
      env: process.env,
    });
    cookies = token?.setCookie ?? [];
    return token;
  } catch (e) {
    if (e instanceof core.RefreshTokenRevoked) cookies = e.setCookie;
    throw e;
  } finally {
    if (cookies.length && !res.headersSent) appendCookies(res, cookies);
    else if (cookies.length) {
      // The response started while the refresh was in flight: the session cookie carrying the
      // rotated tokens cannot reach the browser. Never silent.
      const logger = config.logger?.error ?? console.error;
      logger(
        new core.AccessTokenError(
          `The session cookie re-issued by the refresh of provider "${options.provider}" could not be set: the response was sent while the refresh ran. Await getAccessToken before writing the response.`,
          { provider: options.provider },
        ),
      );
    }
  }
}
