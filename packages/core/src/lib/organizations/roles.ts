/**
 * Roles and the permissions each grants, declared once by the application and checked by one
 * function. A permission is `resource:action` (`project:delete`). The owner role holds every
 * permission any role declares; a member may give (or take away) only a role whose permissions
 * are all their own, so nobody grants more than they hold.
 */

/** `resource:action`, both parts made of lower-case letters, digits, `-` and `_`. */
export type Permission = `${string}:${string}`;

/** The roles an application declares: each role's name and the permissions it grants. */
export type RoleDeclaration = Readonly<Record<string, readonly Permission[]>>;

/** What Latchkey itself checks: managing the organization and its members. */
export const ORGANIZATION_PERMISSIONS = [
  "organization:update",
  "organization:delete",
  "member:add",
  "member:remove",
  "member:update-role",
  "team:manage",
] as const satisfies readonly Permission[];

/**
 * The built-in roles: `owner` (everything, and only owners make or unmake owners), `admin`
 * (manages members, teams and the organization, never deletes it) and `member` (nothing of
 * Latchkey's). Spread them into your own declaration to add permissions:
 * `defineRoles({ ...builtInRoles, member: ["project:read"] })`.
 */
export const builtInRoles = {
  owner: ORGANIZATION_PERMISSIONS,
  admin: ["organization:update", "member:add", "member:remove", "member:update-role", "team:manage"],
  member: [],
} as const satisfies RoleDeclaration;

/** The name of the role that holds every permission and must never be left without a member. */
export const OWNER = "owner";

const NAME = /^[a-z][a-z0-9_-]{0,31}$/;
const PERMISSION = /^[a-z0-9_-]{1,64}:[a-z0-9_-]{1,64}$/;

/** The permissions a declaration names, and Latchkey's own: what `can` accepts (a typo is a type error). */
export type PermissionOf<R extends RoleDeclaration> = R[keyof R][number] | (typeof ORGANIZATION_PERMISSIONS)[number];

/**
 * What holds a role in an organization, as `can` reads it: a role's name, a membership or a member
 * view (`{ role }`), or a session with its active organization (`session.activeOrganization`,
 * which Latchkey fills from the store on each read). Anything else holds no role.
 */
export type RoleHolder =
  | string
  | { readonly role: string }
  | { readonly activeOrganization?: { readonly id?: string; readonly role: string } | null }
  | null
  | undefined;

/** Roles as Latchkey checks them: each role's full set of permissions. */
export interface Roles<R extends RoleDeclaration = RoleDeclaration> {
  /** The declaration, as given. */
  readonly declared: R;
  /** True when `role` is declared. */
  has(role: string): boolean;
  /**
   * The one permission check: true when the role `holder` holds (a role's name, a membership, a
   * session with an active organization) grants `permission`; false for an undeclared role and for
   * a session without an active organization. Needs no `this`: `const { can } = roles` works.
   */
  can(holder: RoleHolder, permission: PermissionOf<R>): boolean;
  /** True when every permission of `role` is one of `holder`'s: `holder` may give or take away `role`. */
  covers(holder: string, role: string): boolean;
}

/**
 * Checks a declaration and makes the {@link Roles} that Latchkey consults. `owner` must be
 * declared; role names are lower-case (`[a-z][a-z0-9_-]*`), permissions `resource:action`.
 * Throws a `TypeError` naming the mistake.
 *
 * @example
 * ```ts
 * const roles = defineRoles({ ...builtInRoles, member: ["project:read"], admin: [...builtInRoles.admin, "project:delete"] })
 * roles.can("member", "project:delete") // false
 * roles.can(session, "project:delete") // the role of the session's active organization
 * ```
 */
export function defineRoles<const R extends RoleDeclaration>(declaration: R): Roles<R> {
  if (typeof declaration !== "object" || declaration === null || Array.isArray(declaration)) {
    throw new TypeError("defineRoles: the declaration must be an object of role name → permissions");
  }
  const everything = new Set<string>();
  const granted = new Map<string, Set<string>>();
  for (const [role, permissions] of Object.entries(declaration)) {
    if (!NAME.test(role)) {
      throw new TypeError(
        `defineRoles: the role name ${JSON.stringify(role)} must match ${NAME} (lower-case, at most 32 characters)`,
      );
    }
    if (!Array.isArray(permissions)) {
      throw new TypeError(`defineRoles: the permissions of ${role} must be an array of "resource:action" strings`);
    }
    for (const permission of permissions) {
      if (typeof permission !== "string" || !PERMISSION.test(permission)) {
        throw new TypeError(
          `defineRoles: ${JSON.stringify(permission)} (role ${role}) is not a permission: write "resource:action", e.g. "project:delete"`,
        );
      }
      everything.add(permission);
    }
    granted.set(role, new Set(permissions));
  }
  if (!granted.has(OWNER)) {
    throw new TypeError(`defineRoles: declare the "${OWNER}" role (spread builtInRoles into your declaration)`);
  }
  // The owner holds every permission: no role can be declared above it.
  granted.set(OWNER, everything);
  const can = (holder: RoleHolder, permission: Permission) => {
    const role = roleOf(holder);
    return role !== undefined && (granted.get(role)?.has(permission) ?? false);
  };
  return {
    declared: declaration,
    has: (role) => typeof role === "string" && granted.has(role),
    can,
    covers(holder, role) {
      const held = granted.get(holder);
      const wanted = granted.get(role);
      if (!held || !wanted) return false;
      for (const permission of wanted) if (!held.has(permission)) return false;
      // Only an owner makes or unmakes an owner, even where a role is declared with every permission.
      return role !== OWNER || holder === OWNER;
    },
  };
}

/** The role's name a {@link RoleHolder} holds, or undefined (a plain read: no getter of the holder's runs twice). */
function roleOf(holder: RoleHolder): string | undefined {
  if (typeof holder === "string") return holder;
  if (typeof holder !== "object" || holder === null) return undefined;
  const own = Object.hasOwn(holder, "role") ? (holder as { role?: unknown }).role : undefined;
  if (typeof own === "string") return own;
  const active = Object.hasOwn(holder, "activeOrganization")
    ? (holder as { activeOrganization?: unknown }).activeOrganization
    : undefined;
  if (typeof active !== "object" || active === null || !Object.hasOwn(active, "role")) return undefined;
  const role = (active as { role?: unknown }).role;
  return typeof role === "string" ? role : undefined;
}
