/**
 * What every call of organizations answers: its value, or why it was refused.
 */

/** Why a call was refused. */
export type OrganizationRefusal =
  /** No such organization, member or invitation, or the acting user is not a member (answered alike). */
  | "not-found"
  /** The acting user's role lacks the permission, or does not cover the role given or taken away. */
  | "forbidden"
  /** Another organization has this slug. */
  | "slug-taken"
  /** The user is already a member. */
  | "exists"
  /** The role is not declared. */
  | "unknown-role"
  /** The name is not 1 to 100 visible characters. */
  | "invalid-name"
  /** Another team of the organization has this name. */
  | "name-taken"
  /** The slug is not 1 to 48 lower-case ASCII letters, digits and inner hyphens. */
  | "invalid-slug"
  /** The change would leave the organization without an owner. */
  | "last-owner"
  /** The member's role changed while the call was deciding: nothing was applied; ask again. */
  | "changed"
  /** The invited address is not one plain ASCII mailbox. */
  | "invalid-email"
  /** Too many invitations from this member or to this organization: try again after `retryAfter` seconds. */
  | "rate-limited"
  /** The invitation e-mail could not be sent (the error is logged): nothing was kept; ask again. */
  | "mail-failed"
  /** The signed-in user's proven (verified) address is not the invited one: nothing was used up. */
  | "wrong-address";

/** What a call answers: its value, or why it was refused (`retryAfter`, in seconds, with `rate-limited`). */
export type OrganizationResult<T> =
  | { ok: true; value: T }
  | { ok: false; reason: OrganizationRefusal; retryAfter?: number };

export const refused = <T>(reason: OrganizationRefusal, retryAfter?: number): OrganizationResult<T> =>
  retryAfter === undefined ? { ok: false, reason } : { ok: false, reason, retryAfter };
export const done = <T>(value: T): OrganizationResult<T> => ({ ok: true, value });
