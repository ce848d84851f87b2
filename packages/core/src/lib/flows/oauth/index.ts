import type { ResponseInternal } from "../../../shapes/data.js";
import { adapterFor } from "../../base/adapter-for.js";
import { errorOf, messageOf } from "../../base/error-of.js";
import { AuthError, InvalidCheck, OAuthProfileParseError, OAuthSignInError } from "../../base/errors.js";
import type { RequestInternal } from "../../http/request.js";
import type { Context } from "../../serve/context.js";
import { bindFlow } from "../binding.js";
import { connectClaim, connectTarget } from "../connect.js";
import { askSignIn, landing, startSession } from "../finish-sign-in.js";
import { loginWithAccount, oauthEmailProven } from "../identity.js";
import { authorizationRequest, proxyOrigin, redirectTarget } from "./authorization.js";
import { clearChecks, decodeState, readCheck } from "./checks.js";
import { completeAuthorization, type VerifiedChecks } from "./code-exchange.js";
import { authorizationServer, type OAuthProvider } from "./discovery.js";

/**
 * `POST /signin/<id>` for an OAuth or OIDC provider (the CSRF token is already verified): sends the
 * user to the provider's authorization endpoint, with the check cookies (bound to this browser
 * and, with `connect`, to the session to connect the account to) and the callback URL
 * remembered. A provider that cannot be reached (discovery) is an `OAuthSignInError`, which sends
 * the user back to the sign-in page with `?error=OAuthSignin`.
 *
 * @example
 * ```ts
 * const res = await startOAuth(req, ctx, provider) // { redirect: "https://op.example/authorize?...", cookies }
 * ```
 */
export async function startOAuth(
  req: RequestInternal,
  ctx: Context,
  provider: OAuthProvider,
): Promise<ResponseInternal> {
  const connect = await connectClaim(req, ctx);
  // The session to connect to travels in the check cookies: without one (`checks: ["none"]`)
  // nothing could carry it, nor bind the callback to this browser.
  const sealed = provider.checks.some((check) => check === "pkce" || check === "state" || check === "nonce");
  if (connect !== undefined && !sealed) {
    throw new OAuthSignInError(
      `Provider "${provider.id}" uses no check cookie (checks: ["none"]), so an account cannot be connected through it`,
      { provider: provider.id },
    );
  }
  await ctx.callbackUrl();
  let endpoint: URL;
  try {
    if (provider.authorization?.url) {
      endpoint = provider.authorization.url;
    } else {
      const as = await authorizationServer(provider, { authorization: true });
      if (!as.authorization_endpoint) throw new Error("the provider's metadata has no authorization_endpoint");
      endpoint = new URL(as.authorization_endpoint);
    }
  } catch (e) {
    if (e instanceof AuthError) throw e;
    const err = errorOf(e);
    throw new OAuthSignInError(
      `The authorization endpoint of provider "${provider.id}" could not be found: ${err.message}`,
      {
        err,
        provider: provider.id,
      },
    );
  }
  const flow = { bind: bindFlow(req, ctx), ...(connect !== undefined ? { connect } : {}) };
  const { url, cookies } = await authorizationRequest(ctx, provider, endpoint, req.query, flow);
  ctx.cookies.push(...cookies);
  ctx.config.logger.debug("oauth: authorization request", {
    provider: provider.id,
    url: `${url.origin}${url.pathname}`,
  });
  return { redirect: url.href, cookies: ctx.cookies };
}

/** The authorization response: the form body of a `response_mode=form_post` POST, else the query. */
function responseParams(req: RequestInternal): URLSearchParams {
  const params = new URLSearchParams();
  const source = req.method === "POST" && req.body && Object.keys(req.body).length > 0 ? req.body : req.query;
  for (const [key, value] of Object.entries(source)) {
    if (typeof value === "string") params.set(key, value);
  }
  return params;
}

/**
 * Reads and verifies the check cookies the provider's `checks` ask for; returns them with the
 * flow's connect claim (the same in every cookie of one flow: they are made together).
 */
async function verifyChecks(
  req: RequestInternal,
  ctx: Context,
  provider: OAuthProvider,
  params: URLSearchParams,
): Promise<{ checks: VerifiedChecks; connect: Set<string | undefined> }> {
  const checks: VerifiedChecks = {};
  const connect = new Set<string | undefined>();
  const read = async (role: "state" | "pkceCodeVerifier" | "nonce") => {
    const check = await readCheck(req, ctx, role, provider.id);
    connect.add(check.connect);
    return check.value;
  };
  if (provider.checks.includes("state")) {
    const expected = await read("state");
    const received = params.get("state");
    if (!received)
      throw new InvalidCheck(`The callback of provider "${provider.id}" has no state parameter`, {
        provider: provider.id,
        check: "state",
      });
    if (received !== expected)
      throw new InvalidCheck(`The state of the callback of provider "${provider.id}" does not match its cookie`, {
        provider: provider.id,
        check: "state",
      });
    checks.state = expected;
  }
  // The provider's own error answer says more than a missing PKCE or nonce cookie would.
  if (params.has("error")) return { checks, connect };
  if (provider.checks.includes("pkce")) checks.code_verifier = await read("pkceCodeVerifier");
  if (provider.checks.includes("nonce")) checks.nonce = await read("nonce");
  return { checks, connect };
}

/**
 * On the redirect proxy itself: a callback whose state was made by another deployment (sharing
 * the secret) is forwarded there, where the check cookies are. Returns the URL to forward to.
 * A state the proxy cannot open, for a sign-in that did not start here (no state cookie), is
 * refused with that cause: "the state cookie is missing" would send the operator looking in the
 * wrong place when the deployments do not share the secret.
 */
async function proxyForward(
  req: RequestInternal,
  ctx: Context,
  provider: OAuthProvider,
  params: URLSearchParams,
): Promise<string | undefined> {
  const origin = proxyOrigin(provider);
  const state = params.get("state");
  if (!origin || origin !== ctx.origin || !state) return undefined;
  const decoded = await decodeState(ctx, state);
  if (!decoded) {
    if (req.cookies[ctx.cookieOptions.state.name]) return undefined; // started here: the checks say more
    throw new InvalidCheck(
      `The state of the callback of provider "${provider.id}" could not be decoded on this redirect proxy: it was sealed with another secret (the proxy and every deployment that uses it must share AUTH_SECRET), altered, or is older than 15 minutes`,
      { provider: provider.id, check: "state" },
    );
  }
  const target = decoded.origin;
  if (!target) return undefined;
  let targetUrl: URL;
  try {
    targetUrl = new URL(target);
  } catch {
    return undefined;
  }
  if (targetUrl.origin === ctx.origin) return undefined;
  return `${targetUrl.origin}${targetUrl.pathname}?${params}`;
}

/**
 * `GET|POST /callback/<id>` for an OAuth or OIDC provider. The check cookies are cleared first
 * (the deletions survive an error response), then verified; the code is redeemed and the profile
 * mapped; the `signIn` callback decides (before any user is created, as in Auth.js); the user and
 * account are found or created through the adapter; the session starts; the user is redirected to
 * the callback URL, or `pages.newUser` the first time. The account is linked to the signed-in
 * user only in a connect flow finished under the session it began under; a plain sign-in signs in
 * as the account's own user (or a new one), whatever session the browser holds. Any failure
 * leaves no session: bad checks (another browser's, another provider's, another session's) are
 * `InvalidCheck`, provider failures `OAuthCallbackError` (both `?error=OAuthCallbackError`).
 */
export async function oauthCallback(
  req: RequestInternal,
  ctx: Context,
  provider: OAuthProvider,
): Promise<ResponseInternal> {
  const params = responseParams(req);

  const forward = await proxyForward(req, ctx, provider, params);
  if (forward) {
    ctx.config.logger.debug("oauth: redirect proxy forwards the callback", {
      provider: provider.id,
      to: forward.split("?")[0],
    });
    return { redirect: forward, cookies: ctx.cookies };
  }

  clearChecks(req, ctx);
  const { checks, connect } = await verifyChecks(req, ctx, provider, params);
  if (connect.size > 1) {
    throw new InvalidCheck(`The check cookies of provider "${provider.id}" belong to different sign-ins`, {
      provider: provider.id,
      check: "connect",
    });
  }
  // A connect flow links only under the session it began under; checked before the code is spent.
  const connectTo = await connectTarget(req, ctx, [...connect][0]);
  const { redirectUri } = redirectTarget(ctx, provider);
  const { profile, user, account, storedAccount } = await completeAuthorization(provider, params, checks, redirectUri);

  const { config } = ctx;
  const known = config.adapter
    ? await adapterFor(config, "getUserByAccount").getUserByAccount({
        provider: provider.id,
        providerAccountId: account.providerAccountId,
      })
    : null;
  const divert = await askSignIn(ctx, { user: known ?? user, account, profile });
  if (divert) return { redirect: divert, cookies: ctx.cookies };

  let emailProven: boolean;
  try {
    emailProven = await oauthEmailProven(provider, profile, account, user.email);
  } catch (e) {
    // A throwing `isEmailVerified` ends the sign-in like a throwing `profile()`: nothing is created.
    throw new OAuthProfileParseError(`The isEmailVerified() of provider "${provider.id}" threw: ${messageOf(e)}`, {
      err: errorOf(e),
      provider: provider.id,
    });
  }
  const login = await loginWithAccount(req, ctx, {
    user,
    account: storedAccount,
    profile,
    allowEmailLinking: provider.allowDangerousEmailAccountLinking,
    emailProven,
    connectTo,
    known,
  });
  const callbackUrl = await ctx.callbackUrl();
  const sessionAccount = { ...account, ...(login.account?.userId ? { userId: login.account.userId } : {}) };
  await startSession(req, ctx, { user: login.user, account: sessionAccount, profile, isNewUser: login.isNewUser });

  return landing(ctx, callbackUrl, login.isNewUser);
}
