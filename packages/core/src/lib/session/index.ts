import type { Cookie, CookieOption, Session } from "../../types.js";
import type { ResolvedConfig } from "../config.js";
import { readDatabaseSession } from "./database-strategy.js";
import { readJwtSession } from "./jwt-strategy.js";

export interface SessionReadOptions {
  /** The request's cookies. */
  cookies: Record<string, string>;
  /** The session cookie's name and options for this request's scheme. */
  cookie: CookieOption;
  /** Set for `POST /session`: the client's data for the `jwt` / `session` callbacks. */
  update?: { data: unknown };
  /** Produce the refreshed cookie. `getSession` says no: it cannot send cookies. */
  reissue: boolean;
}

export interface SessionRead {
  session: Session | Record<string, unknown> | null;
  /** Cookies to set: a refreshed session cookie, or deletions of an invalid one. */
  cookies: Cookie[];
  /** How the user signed in (`["pwd", "otp"]`), when the session recorded it (second factor configured). */
  amr?: string[];
}

/** Reads the session of a request under the configured strategy. */
export function readSession(config: ResolvedConfig, options: SessionReadOptions): Promise<SessionRead> {
  return config.session.strategy === "jwt" ? readJwtSession(config, options) : readDatabaseSession(config, options);
}
