/**
 * The active organization of a signed-in user (issue 38.1): which of their organizations the
 * browser is working in, and their role there. The choice lives in its own cookie, next to the
 * session cookie, holding the organization's id sealed with an HMAC over the user's id under the
 * application's secret (a cookie planted from a sibling sub-domain, or taken from another user's
 * browser, does not open). The role is never kept anywhere the user holds: every read asks the
 * organization store for the membership, so a member removed or demoted on any instance loses
 * the organization, or the role, at the next read everywhere, JWT sessions included (a token
 * cannot say "admin of X" after X removed them, because it never says it).
 */
import { fromBase64url, fromUtf8, hmac, timingSafeEqual, toBase64url, utf8 } from "#platform";
import type { Cookie, CookieOption, LoggerInstance } from "../../shapes/data.js";
import type { OrganizationStore } from "../../shapes/organizations.js";
import { errorOf } from "../base/error-of.js";
import { InvalidConfiguration, SessionTokenError } from "../base/errors.js";
import { fieldOf } from "../base/merge.js";
import { isIdentifier } from "./checks.js";
import { builtInRoles, defineRoles, type RoleDeclaration, type Roles } from "./roles.js";

/** The organization a session works in, and the user's role there, as read from the store on this request. */
export interface ActiveOrganization {
  id: string;
  role: string;
}

/** What a configuration's `organizations` resolves to. */
export interface ResolvedOrganizations {
  readonly store: OrganizationStore;
  readonly roles: Roles;
}

const resolved = new WeakMap<object, ResolvedOrganizations>();
const LABEL = "latchkey active organization\u0000";

/**
 * The configuration's `organizations` option, checked (once per option object): null when it is
 * not set; throws `InvalidConfiguration` naming the fix when it is not a store and roles.
 */
export function organizationsOf(config: { organizations?: unknown }): ResolvedOrganizations | null {
  const option = config.organizations;
  if (option === undefined) return null;
  if (typeof option !== "object" || option === null) {
    throw new InvalidConfiguration(
      "`organizations` must be `{ store, roles? }`: the OrganizationStore given to `Organizations`, and the roles from `defineRoles`.",
    );
  }
  const known = resolved.get(option);
  if (known) return known;
  const store = fieldOf(option, "store");
  if (typeof fieldOf(store, "getMembership") !== "function") {
    throw new InvalidConfiguration(
      "`organizations.store` must be an OrganizationStore (MemoryOrganizationStore(), SqlOrganizationStore(db), RedisOrganizationStore(redis)): the one given to `Organizations`.",
    );
  }
  const roles = fieldOf(option, "roles") ?? defineRoles<RoleDeclaration>(builtInRoles);
  if (typeof fieldOf(roles, "can") !== "function" || typeof fieldOf(roles, "has") !== "function") {
    throw new InvalidConfiguration(
      "`organizations.roles` must be made by `defineRoles` (the roles given to `Organizations`).",
    );
  }
  const made = { store: store as OrganizationStore, roles: roles as Roles };
  resolved.set(option, made);
  return made;
}

/** The name of the active organization's cookie: the session cookie's, with `-organization`. */
function activeOrganizationCookieName(sessionCookie: CookieOption): string {
  return `${sessionCookie.name}-organization`;
}

function macOf(secret: string, userId: string, organizationId: string): string {
  return toBase64url(hmac("sha256", secret, LABEL, userId, "\u0000", organizationId));
}

/** The cookie that makes `organizationId` the active organization of `userId`'s browser (sealed with the newest secret). */
export function activeOrganizationCookie(
  secrets: readonly [string, ...string[]],
  sessionCookie: CookieOption,
  userId: string,
  organizationId: string,
): Cookie {
  const value = `${toBase64url(utf8(organizationId))}.${macOf(secrets[0], userId, organizationId)}`;
  return { name: activeOrganizationCookieName(sessionCookie), value, options: { ...sessionCookie.options } };
}

/** The cookie that clears the active organization. */
export function clearedActiveOrganizationCookie(sessionCookie: CookieOption): Cookie {
  const { expires: _expires, ...options } = sessionCookie.options;
  return { name: activeOrganizationCookieName(sessionCookie), value: "", options: { ...options, maxAge: 0 } };
}

/**
 * The cookie that clears the active organization when the request carries one, else undefined:
 * a sign-out leaves no choice of the signed-out user in the browser.
 */
export function clearedActiveOrganizationIfHeld(
  cookies: Record<string, string | undefined>,
  sessionCookie: CookieOption,
): Cookie | undefined {
  return cookies[activeOrganizationCookieName(sessionCookie)] === undefined
    ? undefined
    : clearedActiveOrganizationCookie(sessionCookie);
}

/** The organization id the cookie names for `userId`, when its seal holds under one of `secrets`; else undefined. */
function openActiveOrganization(
  secrets: readonly string[],
  userId: string,
  value: string | undefined,
): string | undefined {
  if (!value || value.length > 1024) return undefined;
  const dot = value.indexOf(".");
  if (dot <= 0) return undefined;
  let organizationId: string;
  try {
    organizationId = fromUtf8(fromBase64url(value.slice(0, dot)));
  } catch {
    return undefined;
  }
  if (!isIdentifier(organizationId)) return undefined;
  const presented = utf8(value.slice(dot + 1));
  for (const secret of secrets) {
    const expected = utf8(macOf(secret, userId, organizationId));
    if (expected.length === presented.length && timingSafeEqual(expected, presented)) return organizationId;
  }
  return undefined;
}

/**
 * The active organization of `userId` on a request with `cookies`: the organization the cookie
 * names, with the role the store holds for the user there now; null when none is chosen, the
 * cookie does not open for this user, or the user is no longer a member. A store that fails is
 * logged and reads as none (a guard then refuses: fail closed).
 */
export async function readActiveOrganization(
  organizations: ResolvedOrganizations,
  context: {
    secrets: readonly string[];
    cookies: Record<string, string>;
    cookie: CookieOption;
    logger: LoggerInstance;
  },
  userId: string | undefined,
): Promise<ActiveOrganization | null> {
  if (!userId) return null;
  const id = openActiveOrganization(
    context.secrets,
    userId,
    context.cookies[activeOrganizationCookieName(context.cookie)],
  );
  if (id === undefined) return null;
  try {
    const membership = await organizations.store.getMembership(id, userId);
    return membership ? { id, role: membership.role } : null;
  } catch (e) {
    context.logger.error(new SessionTokenError("The active organization could not be read", { err: errorOf(e) }));
    return null;
  }
}

/**
 * The session with its `activeOrganization` as the store says now (`{ id, role }` or null),
 * replacing whatever the session's callbacks put under that name (a client's session update
 * cannot forge it); a new object, so a cached read is never changed.
 */
export function withActiveOrganization<S extends object>(
  session: S,
  active: ActiveOrganization | null,
): S & { activeOrganization: ActiveOrganization | null } {
  return { ...session, activeOrganization: active };
}

/** The active organization a session read put on `session` (`withActiveOrganization`), or null. */
export function activeOrganizationOf(session: object): ActiveOrganization | null {
  const active = fieldOf(session, "activeOrganization");
  const id = fieldOf(active, "id");
  const role = fieldOf(active, "role");
  return typeof id === "string" && typeof role === "string" ? { id, role } : null;
}
