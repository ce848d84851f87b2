import type { Awaitable, ResponseInternal } from "../../shapes/data.js";
import { callback } from "../actions/callback.js";
import { csrf } from "../actions/csrf.js";
import { organization } from "../actions/organization.js";
import { error, verifyRequest } from "../actions/pages.js";
import { providers } from "../actions/providers.js";
import { session } from "../actions/session.js";
import { signinGet, signinPost } from "../actions/signin.js";
import { signoutGet, signoutPost } from "../actions/signout.js";
import { webauthnOptions } from "../actions/webauthn-options.js";
import { UnknownAction } from "../base/errors.js";
import type { RequestInternal } from "../http/request.js";
import type { Context } from "./context.js";

/**
 * The one dispatch from (method, action) to the action that serves it: the action's own answer
 * or promise, passed on as it is (no promise of its own around it). Throws `UnknownAction`.
 */
export function route(req: RequestInternal, ctx: Context): Awaitable<ResponseInternal> {
  if (req.method === "GET") {
    switch (req.action) {
      case "session":
        return session(req, ctx);
      case "csrf":
        return csrf(ctx);
      case "providers":
        return providers(ctx);
      case "signin":
        return signinGet(req, ctx);
      case "signout":
        return signoutGet(req, ctx);
      case "callback":
        return callback(req, ctx);
      case "error":
        return error(req, ctx);
      case "verify-request":
        return verifyRequest(req, ctx);
      case "webauthn-options":
        return webauthnOptions(req, ctx);
    }
  } else {
    switch (req.action) {
      case "session":
        return session(req, ctx);
      case "signin":
        return signinPost(req, ctx);
      case "signout":
        return signoutPost(req, ctx);
      case "callback":
        return callback(req, ctx);
      case "organization":
        return organization(req, ctx);
      default:
        break;
    }
  }
  throw new UnknownAction(`${req.method} is not supported on /${req.action}`);
}
