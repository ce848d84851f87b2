/**
 * What the parts of `Organizations` share: the application's configuration, the store, the roles,
 * the acting user's membership as read each time, and the audit trail.
 */
import type { OrganizationEvent } from "../../shapes/audit.js";
import type { Membership, OrganizationStore } from "../../shapes/organizations.js";
import { recordAudit } from "../audit/record.js";
import type { Env } from "../config/env.js";
import type { AuthConfig } from "../config/options.js";
import { resolveConfig } from "../config/resolve.js";
import type { ResolvedConfig } from "../config/types.js";
import { isIdentifier } from "./checks.js";
import type { Roles } from "./roles.js";

export interface OrganizationsContext {
  config: AuthConfig;
  env: Env | undefined;
  store: OrganizationStore;
  roles: Roles;
}

/**
 * The configuration resolved before anything is written: a mistake in it (no secret, which the
 * audit trail needs) is thrown with its fix named, and nothing is stored.
 */
export function trailOf(context: OrganizationsContext): ResolvedConfig {
  return resolveConfig(context.config, context.env);
}

/** Records one change in the audit trail. */
export function audit(trail: ResolvedConfig, event: Omit<OrganizationEvent, "at">): Promise<void> {
  return recordAudit(trail, { ...event, at: new Date() } as OrganizationEvent);
}

/** The user's membership, or undefined when they are not a member (or the id cannot be one). */
export async function membershipOf(
  context: OrganizationsContext,
  organizationId: unknown,
  userId: string,
): Promise<Membership | undefined> {
  return isIdentifier(organizationId)
    ? ((await context.store.getMembership(organizationId, userId)) ?? undefined)
    : undefined;
}
