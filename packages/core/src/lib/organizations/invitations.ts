/**
 * Invitations: a member with `member:add` invites an address with a role they may grant; the
 * address receives a link; the user signed in with that address, proven, accepts it once.
 *
 * The token (256 random bits) travels only in the e-mail: the store keeps its SHA-256, so a copy
 * of the store opens nothing. The link's origin is the application's own (`AUTH_URL`, or one of
 * `trustedOrigins`), never a request's `Host`. Accepting reads the user's record from the adapter
 * and needs its address verified and equal to the invited one; then the store deletes the
 * invitation and adds the member in one step, so of many accepts at once exactly one joins.
 */
import { hash, randomBytes, toBase64url } from "#platform";
import type { Invitation, Membership } from "../../shapes/organizations.js";
import type { RateLimit, RateLimitHit } from "../../shapes/rate-limit.js";
import { minutes, renderMail } from "../accounts/mail.js";
import { senderOf } from "../accounts/shared.js";
import { hasMethods } from "../base/adapter-for.js";
import { errorOf } from "../base/error-of.js";
import { AuthError, InvalidConfiguration, RateLimited } from "../base/errors.js";
import type { ResolvedConfig } from "../config/types.js";
import { InvalidEmailAddress, normalizeEmailIdentifier } from "../email/identifier.js";
import { linksMailable } from "../http/origin.js";
import { actorOf, isIdentifier } from "./checks.js";
import { audit, membershipOf, type OrganizationsContext, trailOf } from "./context.js";
import { done, type OrganizationResult, refused } from "./result.js";

/** One invitation e-mail, as handed to the `send` option. */
export interface InvitationMail {
  kind: "invitation";
  /** The invited address, normalised. */
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The link that accepts the invitation (the `url` option with `?token=`). */
  url: string;
}

/** The limits of invitations (each `{ max, windowSeconds }`), counted in `rateLimit.store`. */
export interface InvitationLimits {
  /** Invitations one member sends, across organizations. @default 20 per hour */
  perInviter: RateLimit;
  /** Invitations sent to join one organization, by all its members. @default 100 per day */
  perOrganization: RateLimit;
}

/** The `invitations` option of `Organizations`. */
export interface InvitationOptions {
  /**
   * The page that accepts an invitation; its link gets `?token=`. A path is taken at `AUTH_URL`'s
   * origin; an absolute URL must be at `AUTH_URL`'s origin or one of `trustedOrigins` (or a
   * loopback name in development). A request's `Host` never decides it.
   * @example "/invitations/accept"
   */
  url: string;
  /** Sends one invitation e-mail. @default the configuration's Nodemailer provider (its `server` and `from`) */
  send?: (mail: InvitationMail) => Promise<void>;
  /** Seconds an invitation can be accepted. @default 604800 (7 days) */
  maxAge?: number;
  /** Rate limits, each replacing its default. */
  limits?: Partial<InvitationLimits>;
}

/** An invitation as the members who may invite see it: everything but its token's hash. */
export type PendingInvitation = Omit<Invitation, "tokenHash">;

const WEEK = 7 * 24 * 3600;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

const pending = ({ tokenHash: _, ...shown }: Invitation): PendingInvitation => shown;
const hashOf = (token: string) => toBase64url(hash("sha256", token));

function checkLimit(name: string, value: unknown): RateLimit {
  const limit = value as RateLimit;
  if (!Number.isInteger(limit?.max) || limit.max < 1 || !(limit.windowSeconds > 0)) {
    throw new TypeError(
      `Organizations: \`invitations.limits.${name}\` must be { max: <integer >= 1>, windowSeconds: <number > 0> }`,
    );
  }
  return { max: limit.max, windowSeconds: limit.windowSeconds };
}

/** The `invitations` option checked once, when `Organizations` is made: a mistake is a `TypeError` naming it. */
function checkInvitationOptions(given: InvitationOptions | undefined) {
  if (given === undefined) return undefined;
  if (typeof given?.url !== "string" || given.url === "") {
    throw new TypeError(
      'Organizations: `invitations.url` must be the page that accepts an invitation, a path at AUTH_URL\'s origin ("/invitations/accept") or an absolute URL at one of `trustedOrigins`',
    );
  }
  if (given.send !== undefined && typeof given.send !== "function") {
    throw new TypeError("Organizations: `invitations.send` must be a function (mail) => Promise<void>");
  }
  const maxAge = given.maxAge ?? WEEK;
  if (!Number.isInteger(maxAge) || maxAge < 60) {
    throw new TypeError("Organizations: `invitations.maxAge` must be a whole number of seconds, at least 60");
  }
  const limits: InvitationLimits = {
    perInviter: checkLimit("perInviter", given.limits?.perInviter ?? { max: 20, windowSeconds: 3600 }),
    perOrganization: checkLimit("perOrganization", given.limits?.perOrganization ?? { max: 100, windowSeconds: 86400 }),
  };
  return { url: given.url, send: given.send, maxAge, limits };
}

type CheckedOptions = NonNullable<ReturnType<typeof checkInvitationOptions>>;

/**
 * The link of an invitation: `url` at the application's own origin. Throws `InvalidConfiguration`
 * naming the fix when that origin is not the configuration's (a path without `AUTH_URL`, an
 * absolute URL at an origin that is neither `AUTH_URL`'s nor a trusted one).
 */
function linkOf(config: ResolvedConfig, page: string, token: string): URL {
  let url: URL;
  if (URL.canParse(page)) url = new URL(page);
  else if (config.url) url = new URL(page, config.url.origin);
  else {
    throw new InvalidConfiguration(
      `Organizations: \`invitations.url\` is the path ${JSON.stringify(page)}, and no AUTH_URL says at which origin: set AUTH_URL (the application's URL), or give an absolute URL at one of \`trustedOrigins\`. Nothing was stored.`,
    );
  }
  if ((url.protocol !== "https:" && url.protocol !== "http:") || !linksMailable(config, url)) {
    throw new InvalidConfiguration(
      `Organizations: \`invitations.url\` points to ${url.origin}, which is neither AUTH_URL's origin nor one of \`trustedOrigins\`: an invitation links only to the application's own origin. Nothing was stored.`,
    );
  }
  url.searchParams.set("token", token);
  return url;
}

/** Counts one invitation against both limits; null when counted, else seconds to wait. A failing store lets it through. */
async function countInvitation(
  config: ResolvedConfig,
  limits: InvitationLimits,
  inviter: string,
  organizationId: string,
): Promise<number | null> {
  const store = config.rateLimit?.store;
  if (!store) return null;
  const counters = [
    { key: `organizations:invite:user:${hashOf(inviter)}`, limit: limits.perInviter },
    { key: `organizations:invite:org:${hashOf(organizationId)}`, limit: limits.perOrganization },
  ];
  let hits: RateLimitHit[];
  try {
    hits = await Promise.all(counters.map((c) => store.increment(c.key, c.limit.windowSeconds * 1000)));
  } catch (e) {
    config.logger.error(
      new RateLimited("The rate-limit store failed; the invitation was let through", { err: errorOf(e) }),
    );
    return null;
  }
  const over = counters.findIndex((c, i) => (hits[i]?.count ?? 0) > c.limit.max);
  const hit = hits[over];
  if (!hit) return null;
  // Refused: neither counter keeps this one, so a refused flood does not push the window on.
  await Promise.all(counters.map((c) => store.decrement(c.key))).catch(() => {});
  return Math.max(1, Math.ceil((hit.resetAt - Date.now()) / 1000));
}

/** The invitation calls of `Organizations`, over its context. */
export function invitationCalls(context: OrganizationsContext, given: InvitationOptions | undefined) {
  const { store, roles } = context;
  const options: CheckedOptions | undefined = checkInvitationOptions(given);
  const configured = (): CheckedOptions => {
    if (!options) {
      throw new TypeError(
        'Organizations: invitations need the `invitations` option, at least the page that accepts them: Organizations(config, { store, invitations: { url: "/invitations/accept" } })',
      );
    }
    return options;
  };
  /** The acting member when they may invite to (or revoke an invitation with) `role`, else the refusal. */
  const inviter = async (organizationId: string, userId: string, role?: string) => {
    const membership = await membershipOf(context, organizationId, userId);
    if (!membership) return refused<never>("not-found");
    if (!roles.can(membership.role, "member:add") || (role !== undefined && !roles.covers(membership.role, role)))
      return refused<never>("forbidden");
    return membership;
  };

  return {
    /**
     * Invites `email` to the organization with `role` (`member:add`, and a role whose permissions
     * are all the acting user's, as for `addMember`), and mails the link. The answer is the same
     * whether the address is a member already or has an invitation pending: each invitation stands
     * alone, and accepting one as a member changes nothing. Rate-limited per inviter and per
     * organization (`invitations.limits`).
     */
    async invite(
      actorId: string,
      organizationId: string,
      input: { email: string; role: string },
    ): Promise<OrganizationResult<PendingInvitation>> {
      const userId = actorOf(actorId);
      const settings = configured();
      const trail = trailOf(context); // a configuration mistake is thrown before anything changes
      const send = senderOf(trail, settings.send, "Invitations");
      const token = toBase64url(randomBytes(32));
      const link = linkOf(trail, settings.url, token);
      let email: string;
      try {
        email = normalizeEmailIdentifier(input?.email);
      } catch (e) {
        if (e instanceof InvalidEmailAddress) return refused("invalid-email");
        throw e;
      }
      const member = await inviter(organizationId, userId);
      if (!("userId" in member)) return member;
      if (!roles.has(input.role)) return refused("unknown-role");
      if (!roles.covers(member.role, input.role)) return refused("forbidden");
      const wait = await countInvitation(trail, settings.limits, userId, organizationId);
      if (wait !== null) return refused("rate-limited", wait);
      const organization = await store.getOrganization(organizationId);
      if (!organization) return refused("not-found");
      const now = new Date();
      const invitation: Invitation = {
        id: crypto.randomUUID(),
        organizationId,
        email,
        role: input.role,
        invitedBy: userId,
        tokenHash: hashOf(token),
        createdAt: now,
        expiresAt: new Date(now.getTime() + settings.maxAge * 1000),
      };
      if ((await store.createInvitation(invitation)) !== "created") return refused("not-found");
      const mail = renderMail("invitation", email, link.host, trail.theme, {
        heading: `You are invited to ${organization.name}`,
        lines: [
          `A member of ${organization.name} invited this address to join it as ${input.role}.`,
          `Sign in with this address, then open the link. It works once, within ${minutes(settings.maxAge)}. If you did not expect it, ignore this e-mail.`,
        ],
        button: { label: "Accept the invitation", url: link.href },
      });
      try {
        await send({ ...mail, url: link.href });
      } catch (e) {
        // Nobody holds its token: the invitation would only clutter the pending list.
        await store.deleteInvitation(organizationId, invitation.id);
        trail.logger.error(new AuthError("An invitation e-mail was not sent", { err: errorOf(e) }));
        return refused("mail-failed");
      }
      await audit(trail, {
        type: "invitation.created",
        userId,
        organizationId,
        invitationId: invitation.id,
        identifier: email,
        role: input.role,
      });
      return done(pending(invitation));
    },

    /** The organization's invitations not yet accepted, revoked or expired, oldest first (`member:add`). */
    async invitations(actorId: string, organizationId: string): Promise<OrganizationResult<PendingInvitation[]>> {
      const member = await inviter(organizationId, actorOf(actorId));
      if (!("userId" in member)) return member;
      return done((await store.listInvitations(organizationId, new Date())).map(pending));
    },

    /**
     * Revokes an invitation: its link stops working at once (`member:add`, and its role covered
     * by the acting user's: an admin does not revoke an owner's invitation to make an owner).
     */
    async revokeInvitation(
      actorId: string,
      organizationId: string,
      invitationId: string,
    ): Promise<OrganizationResult<void>> {
      const userId = actorOf(actorId);
      const trail = trailOf(context); // a configuration mistake is thrown before anything changes
      const member = await inviter(organizationId, userId);
      if (!("userId" in member)) return member;
      if (!isIdentifier(invitationId)) return refused("not-found");
      const found = (await store.listInvitations(organizationId, new Date())).find((i) => i.id === invitationId);
      if (!found) return refused("not-found");
      if (!roles.covers(member.role, found.role)) return refused("forbidden");
      const revoked = await store.deleteInvitation(organizationId, invitationId);
      if (!revoked) return refused("not-found");
      await audit(trail, {
        type: "invitation.revoked",
        userId,
        organizationId,
        invitationId,
        identifier: revoked.email,
        role: revoked.role,
      });
      return done(undefined);
    },

    /**
     * Accepts an invitation with the `token` of its link, for the signed-in user `actorId`. Their
     * record (`adapter.getUser`) must have the invited address, verified (`emailVerified`), else
     * `wrong-address` and the invitation stays for its owner. The invitation is then only as good
     * as its inviter: one who has since lost the power to grant its role makes it `forbidden`.
     * Used, revoked, expired and unknown tokens are all `not-found`; a member already is told
     * `exists` (the invitation is used up, their role stays).
     */
    async acceptInvitation(actorId: string, token: string): Promise<OrganizationResult<Membership>> {
      const userId = actorOf(actorId);
      const trail = trailOf(context); // a configuration mistake is thrown before anything changes
      const adapter = trail.adapter;
      if (!hasMethods(adapter, "getUser")) {
        throw new InvalidConfiguration(
          "Organizations: accepting an invitation reads the user's proven address: the configuration needs an `adapter` with `getUser`.",
        );
      }
      if (typeof token !== "string" || !TOKEN.test(token)) return refused("not-found");
      const tokenHash = hashOf(token);
      const invitation = await store.getInvitationByToken(tokenHash, new Date());
      if (!invitation) return refused("not-found");
      const user = await adapter.getUser(userId);
      if (!user?.emailVerified || provenAddress(user.email) !== invitation.email) return refused("wrong-address");
      if (!roles.has(invitation.role)) return refused("unknown-role");
      const from = await membershipOf(context, invitation.organizationId, invitation.invitedBy);
      if (!from || !roles.can(from.role, "member:add") || !roles.covers(from.role, invitation.role))
        return refused("forbidden");
      const accepted = await store.acceptInvitation(tokenHash, userId, new Date());
      if (!accepted) return refused("not-found");
      if (accepted.outcome === "exists") return refused("exists");
      const { organizationId, role } = accepted.invitation;
      const base = { userId, organizationId, memberId: userId, role };
      await audit(trail, {
        ...base,
        type: "invitation.accepted",
        invitationId: invitation.id,
        identifier: invitation.email,
      });
      await audit(trail, { ...base, type: "member.added" });
      const membership = await store.getMembership(organizationId, userId);
      return membership ? done(membership) : refused("not-found");
    },
  };
}

/**
 * The user's address as invitations compare it: normalised as every e-mail identifier of the
 * library (trimmed, lower case), and only when it is one plain ASCII mailbox, so that a look-alike
 * (full-width letters, another script) never equals an invited address.
 */
function provenAddress(email: unknown): string | undefined {
  try {
    return typeof email === "string" ? normalizeEmailIdentifier(email) : undefined;
  } catch {
    return undefined;
  }
}
