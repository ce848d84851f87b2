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
] as const satisfies readonly Permission[];

/**
 * The built-in roles: `owner` (everything, and only owners make or unmake owners), `admin`
 * (manages members and the organization, never deletes it) and `member` (nothing of
 * Latchkey's). Spread them into your own declaration to add permissions:
 * `defineRoles({ ...builtInRoles, member: ["project:read"] })`.
 */
export const builtInRoles = {
  owner: ORGANIZATION_PERMISSIONS,
  admin: ["organization:update", "member:add", "member:remove", "member:update-role"],
  member: [],
} as const satisfies RoleDeclaration;

/** The name of the role that holds every permission and must never be left without a member. */
export const OWNER = "owner";

const NAME = /^[a-z][a-z0-9_-]{0,31}$/;
const PERMISSION = /^[a-z0-9_-]{1,64}:[a-z0-9_-]{1,64}$/;

/** Roles as Latchkey checks them: each role's full set of permissions. */
export interface Roles<R extends RoleDeclaration = RoleDeclaration> {
  /** The declaration, as given. */
  readonly declared: R;
  /** True when `role` is declared. */
  has(role: string): boolean;
  /** True when `role` grants `permission` (false for an undeclared role). */
  can(role: string, permission: Permission): boolean;
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
  const can = (role: string, permission: Permission) => granted.get(role)?.has(permission) ?? false;
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
