/**
 * Teams in the demo: the roles of its organizations, the `Organizations` and `ApiKeys` it acts
 * through (both over the demo's storage, see storage.ts), and the organization seeded on first
 * start. The pages that use them are in team-pages.ts.
 */
import { ApiKeys, type ApiKeysApi } from "@latchkey/core/api-keys";
import {
  builtInRoles,
  defineRoles,
  type Organization,
  Organizations,
  type OrganizationsApi,
} from "@latchkey/core/organizations";
import type { AuthConfig } from "@latchkey/express";
import type { Storage } from "./storage.js";

/**
 * The roles of the demo's organizations: Latchkey's built-in ones, with the demo's own
 * permissions on its (pretend) projects. The owner holds every permission declared here.
 */
export const demoRoles = defineRoles({
  ...builtInRoles,
  admin: [...builtInRoles.admin, "project:read", "project:write"],
  member: ["project:read"],
});

/** The permissions an organization's API key may carry (each only when its creator's role holds it). */
export const API_KEY_SCOPES = ["project:read", "project:write"] as const;

/** The organization the demo user owns from the first start. */
const DEMO_ORGANIZATION = { name: "Demo Company", slug: "demo-company" };

export interface DemoTeams {
  organizations: OrganizationsApi;
  apiKeys: ApiKeysApi;
  /** Whether invitations can be mailed (the demo has a mail server or EMAIL_SERVER). */
  invitations: boolean;
}

/**
 * The demo's organizations and API keys. `url` is the demo's origin: the invitation e-mails link
 * to its /account/invitations/accept page (an address the configuration trusts, never a request's Host).
 */
export function demoTeams(config: AuthConfig, storage: Storage, url: string, mail: boolean): DemoTeams {
  const organizations = Organizations(config, {
    store: storage.organizations,
    roles: demoRoles,
    // Sent through the configuration's e-mail provider: in development, the mail catcher of /dev/mail.
    invitations: { url: new URL("/account/invitations/accept", url).href },
  });
  // A key's prefix names the application it opens ("demo_<id>_<secret>"), for people and secret scanners.
  const apiKeys = ApiKeys(config, { store: storage.apiKeys, organizations, prefix: "demo" });
  return { organizations, apiKeys, invitations: mail };
}

/**
 * Creates the demo organization, owned by `ownerId`, on first start; later starts find it. Its
 * owner switches to it on the account page, and invites others from its members page.
 */
export async function seedDemoOrganization(teams: DemoTeams, storage: Storage, ownerId: string): Promise<Organization> {
  const existing = await storage.organizations.getOrganizationBySlug(DEMO_ORGANIZATION.slug);
  if (existing) return existing;
  const created = await teams.organizations.create(ownerId, DEMO_ORGANIZATION);
  if (created.ok) return created.value;
  // Another instance seeded it between the read and the create.
  const seeded = await storage.organizations.getOrganizationBySlug(DEMO_ORGANIZATION.slug);
  if (!seeded) throw new Error(`The demo organization could not be seeded: ${created.reason}`);
  return seeded;
}
