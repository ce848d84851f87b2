/**
 * Invitations, attacked: a stolen link opened by another user, by the address's unverified owner,
 * by a look-alike address; a link used twice or fifty times at once, expired, revoked; roles above
 * the inviter's, undeclared, or granted by an inviter who has since lost the power; ids of another
 * organization in every call; a flood of invitations; a link pointed at another origin.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AuditEvent } from "../../src/audit.js";
import { MemoryAdapter } from "../../src/memory-adapter.js";
import {
  builtInRoles,
  defineRoles,
  type InvitationMail,
  type InvitationOptions,
  MemoryOrganizationStore,
  type OrganizationStore,
  Organizations,
} from "../../src/organizations.js";
import type { AuthConfig } from "../../src/types.js";
import { makeConfig } from "../helpers.js";

const roles = defineRoles({ ...builtInRoles, billing: ["invoice:read"] });
const ENV = { AUTH_URL: "https://app.example/auth" };

/**
 * An organization with an owner (olivia), an admin (adam) and a member (mia); users who may be
 * invited, with proven or unproven addresses; the e-mails sent and the audit events recorded.
 */
async function world(
  options: {
    invitations?: Partial<InvitationOptions>;
    config?: Partial<AuthConfig>;
    env?: Record<string, string>;
  } = {},
) {
  const events: AuditEvent[] = [];
  const mails: InvitationMail[] = [];
  const errors: unknown[] = [];
  const adapter = MemoryAdapter();
  const verified = new Date();
  const people: Array<[string, string, Date | null]> = [
    ["olivia", "olivia@example.com", verified],
    ["adam", "adam@example.com", verified],
    ["mia", "mia@example.com", verified],
    ["ivy", "Ivy@Example.COM", verified],
    ["eve", "eve@example.com", verified],
    ["una", "una@example.com", null],
    ["wide", "\uff49\uff56\uff59@example.com", verified],
    ["cyrillic", "\u0456vy@example.com", verified],
  ];
  for (const [id, email, emailVerified] of people) await adapter.createUser?.({ id, email, emailVerified });
  const store = MemoryOrganizationStore();
  const config = makeConfig({
    adapter,
    session: { strategy: "jwt" },
    audit: {},
    events: { audit: (event) => void events.push(event) },
    logger: { error: (e) => void errors.push(e), warn: () => {}, debug: () => {} },
    ...options.config,
  });
  const orgs = Organizations(config, {
    roles,
    store,
    env: options.env ?? ENV,
    invitations: { url: "/invitations/accept", send: async (mail) => void mails.push(mail), ...options.invitations },
  });
  const created = await orgs.create("olivia", { name: "Acme", slug: `acme-${crypto.randomUUID().slice(0, 8)}` });
  if (!created.ok) throw new Error(created.reason);
  const id = created.value.id;
  expect((await orgs.addMember("olivia", id, { userId: "adam", role: "admin" })).ok).toBe(true);
  expect((await orgs.addMember("olivia", id, { userId: "mia", role: "member" })).ok).toBe(true);
  /** The token of the last e-mail sent. */
  const lastToken = () => new URL(mails.at(-1)?.url ?? "").searchParams.get("token") ?? "";
  return { orgs, id, store, events, mails, errors, config, adapter, lastToken };
}

/** An invitation of ivy's address by `by` with `role`, and its token. */
async function invited(w: Awaited<ReturnType<typeof world>>, role = "member", by = "adam") {
  const answer = await w.orgs.invite(by, w.id, { email: "ivy@example.com", role });
  if (!answer.ok) throw new Error(answer.reason);
  return { invitation: answer.value, token: w.lastToken() };
}

const roleOf = async (store: OrganizationStore, id: string, userId: string) =>
  (await store.getMembership(id, userId))?.role;

afterEach(() => {
  vi.useRealTimers();
});

describe("Invitations: the way in", () => {
  it("an admin invites an address; the e-mail links to AUTH_URL's origin with a token kept only as its hash; the invited user joins with the role", async () => {
    const w = await world();
    const answer = await w.orgs.invite("adam", w.id, { email: " Ivy@Example.com ", role: "member" });
    expect(answer.ok).toBe(true);
    expect(w.mails).toHaveLength(1);
    const mail = w.mails[0] as InvitationMail;
    expect(mail.to).toBe("ivy@example.com");
    expect(mail.subject).toContain("Acme");
    const link = new URL(mail.url);
    expect(link.origin + link.pathname).toBe("https://app.example/invitations/accept");
    const token = w.lastToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(mail.text).toContain(mail.url);
    const stored = await w.store.listInvitations(w.id, new Date());
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(token);
    const listed = await w.orgs.invitations("adam", w.id);
    expect(listed.ok && listed.value.map((i) => [i.email, i.role, i.invitedBy])).toEqual([
      ["ivy@example.com", "member", "adam"],
    ]);
    expect(JSON.stringify(listed)).not.toMatch(/tokenHash/);

    const joined = await w.orgs.acceptInvitation("ivy", token);
    expect(joined.ok && [joined.value.userId, joined.value.role]).toEqual(["ivy", "member"]);
    expect(await roleOf(w.store, w.id, "ivy")).toBe("member");
    expect((await w.orgs.invitations("adam", w.id)).ok && (await w.store.listInvitations(w.id, new Date()))).toEqual(
      [],
    );
    const kinds = w.events.map((e) => e.type).filter((t) => t.startsWith("invitation.") || t === "member.added");
    expect(kinds.slice(-3)).toEqual(["invitation.created", "invitation.accepted", "member.added"]);
    const accepted = w.events.find((e) => e.type === "invitation.accepted");
    expect(accepted).toMatchObject({ userId: "ivy", memberId: "ivy", role: "member", identifier: "ivy@example.com" });
  });

  it("rule: the link's origin is the application's own, never a request's: a path without AUTH_URL, or an absolute URL elsewhere, is refused naming the fix, and nothing is stored or sent", async () => {
    const noUrl = await world({ env: {} });
    await expect(noUrl.orgs.invite("adam", noUrl.id, { email: "ivy@example.com", role: "member" })).rejects.toThrow(
      /set AUTH_URL/,
    );
    const elsewhere = await world({ invitations: { url: "https://evil.example/accept" } });
    await expect(
      elsewhere.orgs.invite("adam", elsewhere.id, { email: "ivy@example.com", role: "member" }),
    ).rejects.toThrow(/neither AUTH_URL's origin nor one of `trustedOrigins`/);
    for (const w of [noUrl, elsewhere]) {
      expect(w.mails).toEqual([]);
      expect(await w.store.listInvitations(w.id, new Date())).toEqual([]);
    }
    const trusted = await world({
      env: {},
      config: { trustedOrigins: ["https://www.app.example"] },
      invitations: { url: "https://www.app.example/join" },
    });
    expect((await trusted.orgs.invite("adam", trusted.id, { email: "ivy@example.com", role: "member" })).ok).toBe(true);
    expect(new URL(trusted.mails[0]?.url ?? "").origin).toBe("https://www.app.example");
  });

  it.each([
    ["a list", "ivy@example.com, eve@example.com"],
    ["a full-width at sign", "ivy\uff20example.com"],
    ["a header injection", "ivy@example.com\r\nBcc: eve@example.com"],
    ["no address", ""],
  ])("refuses %s as the invited address ('invalid-email'), sending nothing", async (_, email) => {
    const w = await world();
    expect(await w.orgs.invite("adam", w.id, { email, role: "member" })).toEqual({
      ok: false,
      reason: "invalid-email",
    });
    expect(w.mails).toEqual([]);
  });

  it("a mail that fails is logged, answered 'mail-failed', and leaves no invitation behind", async () => {
    const w = await world({
      invitations: {
        send: async () => {
          throw new Error("SMTP down");
        },
      },
    });
    expect(await w.orgs.invite("adam", w.id, { email: "ivy@example.com", role: "member" })).toEqual({
      ok: false,
      reason: "mail-failed",
    });
    expect(await w.store.listInvitations(w.id, new Date())).toEqual([]);
    expect(String(w.errors[0])).toMatch(/invitation e-mail was not sent/);
  });

  it("names the fix when invitations are used without their option, or accepted without an adapter", async () => {
    const config = makeConfig();
    const orgs = Organizations(config, { store: MemoryOrganizationStore(), env: ENV });
    const created = await orgs.create("olivia", { name: "Acme", slug: `acme-${crypto.randomUUID().slice(0, 8)}` });
    if (!created.ok) throw new Error(created.reason);
    await expect(orgs.invite("olivia", created.value.id, { email: "ivy@example.com", role: "member" })).rejects.toThrow(
      /invitations: \{ url: "\/invitations\/accept" \}/,
    );
    const noAdapter = Organizations(config, {
      store: MemoryOrganizationStore(),
      env: ENV,
      invitations: { url: "/join", send: async () => {} },
    });
    await expect(noAdapter.acceptInvitation("ivy", "x".repeat(43))).rejects.toThrow(/adapter` with `getUser`/);
    expect(() => Organizations(config, { store: MemoryOrganizationStore(), invitations: { url: "" } })).toThrow(
      /invitations.url/,
    );
    expect(() =>
      Organizations(config, { store: MemoryOrganizationStore(), invitations: { url: "/join", maxAge: 0 } }),
    ).toThrow(/maxAge/);
  });
});

describe("Invitations: theft and reuse", () => {
  it("rule: a stolen link does not work for another user, for the address's unverified owner, nor for a full-width or Cyrillic look-alike; it still works for its owner", async () => {
    const w = await world();
    const sent = await w.orgs.invite("adam", w.id, { email: "una@example.com", role: "member" });
    expect(sent.ok).toBe(true);
    const unaToken = w.lastToken();
    expect(await w.orgs.acceptInvitation("una", unaToken)).toEqual({ ok: false, reason: "wrong-address" });

    const { token } = await invited(w);
    for (const thief of ["eve", "una", "wide", "cyrillic", "mia", "nobody"]) {
      expect(await w.orgs.acceptInvitation(thief, token), thief).toEqual({ ok: false, reason: "wrong-address" });
      if (thief !== "mia") expect(await roleOf(w.store, w.id, thief), thief).toBeUndefined();
    }
    // Ivy's address is stored as "Ivy@Example.COM": case is not another address.
    const joined = await w.orgs.acceptInvitation("ivy", token);
    expect(joined.ok).toBe(true);
  });

  it("rule: a link works once: 50 accepts at once by its user, one joins; the rest, and every later one, are 'not-found'", async () => {
    const w = await world();
    const { token } = await invited(w);
    const answers = await Promise.all(Array.from({ length: 50 }, () => w.orgs.acceptInvitation("ivy", token)));
    expect(answers.filter((a) => a.ok)).toHaveLength(1);
    expect(answers.filter((a) => !a.ok).map((a) => !a.ok && a.reason)).toEqual(Array(49).fill("not-found"));
    expect(await w.orgs.acceptInvitation("ivy", token)).toEqual({ ok: false, reason: "not-found" });
    expect(w.events.filter((e) => e.type === "invitation.accepted")).toHaveLength(1);
  });

  it("rule: an expired invitation is 'not-found', and is no longer listed", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const w = await world({ invitations: { maxAge: 3600 } });
    const { token } = await invited(w);
    vi.setSystemTime(Date.now() + 3600_000 + 1);
    expect(await w.orgs.acceptInvitation("ivy", token)).toEqual({ ok: false, reason: "not-found" });
    const listed = await w.orgs.invitations("adam", w.id);
    expect(listed.ok && listed.value).toEqual([]);
    expect(await roleOf(w.store, w.id, "ivy")).toBeUndefined();
  });

  it("rule: a revoked invitation's link stops working at once", async () => {
    const w = await world();
    const { invitation, token } = await invited(w);
    expect(await w.orgs.revokeInvitation("olivia", w.id, invitation.id)).toEqual({ ok: true, value: undefined });
    expect(await w.orgs.acceptInvitation("ivy", token)).toEqual({ ok: false, reason: "not-found" });
    expect(w.events.at(-1)).toMatchObject({
      type: "invitation.revoked",
      userId: "olivia",
      invitationId: invitation.id,
    });
  });

  it.each(["", "x", "x".repeat(44), "../../etc", "a".repeat(42) + "\n", null, 42])(
    "a token that cannot be one (%j) is 'not-found'",
    async (token) => {
      const w = await world();
      expect(await w.orgs.acceptInvitation("ivy", token as string)).toEqual({ ok: false, reason: "not-found" });
    },
  );
});

describe("Invitations: who may grant what", () => {
  it("rule: a member cannot invite; an admin cannot invite an owner nor to a role they lack; only declared roles", async () => {
    const w = await world();
    const ask = (by: string, role: string) => w.orgs.invite(by, w.id, { email: "ivy@example.com", role });
    expect(await ask("mia", "member")).toEqual({ ok: false, reason: "forbidden" });
    expect(await ask("adam", "owner")).toEqual({ ok: false, reason: "forbidden" });
    expect(await ask("adam", "billing")).toEqual({ ok: false, reason: "forbidden" });
    expect(await ask("adam", "superuser")).toEqual({ ok: false, reason: "unknown-role" });
    expect(await ask("adam", "__proto__")).toEqual({ ok: false, reason: "unknown-role" });
    expect(w.mails).toEqual([]);
    expect((await ask("olivia", "owner")).ok).toBe(true);
    const joined = await w.orgs.acceptInvitation("ivy", w.lastToken());
    expect(joined.ok && joined.value.role).toBe("owner");
  });

  it("rule: an invitation is only as good as its inviter: once the admin who sent it is demoted, it grants nothing", async () => {
    const w = await world();
    const { token } = await invited(w, "admin");
    expect((await w.orgs.setRole("olivia", w.id, "adam", "member")).ok).toBe(true);
    expect(await w.orgs.acceptInvitation("ivy", token)).toEqual({ ok: false, reason: "forbidden" });
    expect(await roleOf(w.store, w.id, "ivy")).toBeUndefined();
  });

  it("rule: a role another application declares (or this one no longer does) is refused at acceptance", async () => {
    const w = await world();
    const { token } = await invited(w, "billing", "olivia");
    const narrower = Organizations(w.config, {
      roles: defineRoles(builtInRoles),
      store: w.store,
      env: ENV,
      invitations: { url: "/join", send: async () => {} },
    });
    expect(await narrower.acceptInvitation("ivy", token)).toEqual({ ok: false, reason: "unknown-role" });
    expect(await roleOf(w.store, w.id, "ivy")).toBeUndefined();
  });

  it("rule: an admin does not revoke an owner's invitation to make an owner; a member revokes nothing; the owner may", async () => {
    const w = await world();
    const sent = await w.orgs.invite("olivia", w.id, { email: "ivy@example.com", role: "owner" });
    if (!sent.ok) throw new Error(sent.reason);
    expect(await w.orgs.revokeInvitation("adam", w.id, sent.value.id)).toEqual({ ok: false, reason: "forbidden" });
    expect(await w.orgs.revokeInvitation("mia", w.id, sent.value.id)).toEqual({ ok: false, reason: "forbidden" });
    expect((await w.orgs.revokeInvitation("olivia", w.id, sent.value.id)).ok).toBe(true);
  });

  it("rule: ids of another organization give nothing in any call: invite, list, revoke", async () => {
    const w = await world();
    const other = await w.orgs.create("eve", { name: "Other", slug: `other-${crypto.randomUUID().slice(0, 8)}` });
    if (!other.ok) throw new Error(other.reason);
    const otherId = other.value.id;
    const theirs = await w.orgs.invite("eve", otherId, { email: "ivy@example.com", role: "member" });
    if (!theirs.ok) throw new Error(theirs.reason);
    const theirToken = w.lastToken();
    const ours = await invited(w);
    const notFound = { ok: false, reason: "not-found" };
    expect(await w.orgs.invite("adam", otherId, { email: "mia@example.com", role: "member" })).toEqual(notFound);
    expect(await w.orgs.invitations("adam", otherId)).toEqual(notFound);
    expect(await w.orgs.revokeInvitation("adam", otherId, theirs.value.id)).toEqual(notFound);
    expect(await w.orgs.revokeInvitation("adam", w.id, theirs.value.id)).toEqual(notFound);
    expect(await w.orgs.revokeInvitation("eve", otherId, ours.invitation.id)).toEqual(notFound);
    expect(await w.orgs.invitations("adam", "__proto__")).toEqual(notFound);
    // Both invitations still work, each for its own organization.
    expect((await w.orgs.acceptInvitation("ivy", theirToken)).ok).toBe(true);
    expect((await w.orgs.acceptInvitation("ivy", ours.token)).ok).toBe(true);
    expect(await roleOf(w.store, otherId, "ivy")).toBe("member");
    expect(await roleOf(w.store, w.id, "ivy")).toBe("member");
  });

  it("rule: no enumeration: inviting a member, an address already invited and a new one answer alike", async () => {
    const w = await world();
    const shape = (answer: Awaited<ReturnType<typeof w.orgs.invite>>) =>
      answer.ok ? [answer.ok, Object.keys(answer.value).sort(), answer.value.role] : answer;
    const member = await w.orgs.invite("adam", w.id, { email: "mia@example.com", role: "member" });
    const fresh = await w.orgs.invite("adam", w.id, { email: "ivy@example.com", role: "member" });
    const again = await w.orgs.invite("adam", w.id, { email: "ivy@example.com", role: "member" });
    expect(shape(member)).toEqual(shape(fresh));
    expect(shape(again)).toEqual(shape(fresh));
    expect(w.mails).toHaveLength(3);
    // The member who accepts changes nothing: they are told they are one.
    const miaToken = new URL(w.mails[0]?.url ?? "").searchParams.get("token") ?? "";
    expect(await w.orgs.acceptInvitation("mia", miaToken)).toEqual({ ok: false, reason: "exists" });
    expect(await roleOf(w.store, w.id, "mia")).toBe("member");
  });

  it("rule: outsiders and members without member:add see no invitation, and cannot spend the organization's budget", async () => {
    const w = await world({ invitations: { limits: { perOrganization: { max: 1, windowSeconds: 60 } } } });
    for (let i = 0; i < 5; i++) {
      expect(await w.orgs.invite("eve", w.id, { email: `x${i}@example.com`, role: "member" })).toEqual({
        ok: false,
        reason: "not-found",
      });
      expect(await w.orgs.invite("mia", w.id, { email: `x${i}@example.com`, role: "member" })).toEqual({
        ok: false,
        reason: "forbidden",
      });
    }
    expect(await w.orgs.invitations("eve", w.id)).toEqual({ ok: false, reason: "not-found" });
    expect(await w.orgs.invitations("mia", w.id)).toEqual({ ok: false, reason: "forbidden" });
    expect((await invited(w)).token).not.toBe("");
  });

  it("rule: invitations are rate-limited per inviter and per organization; refused ones are not sent and not counted", async () => {
    const w = await world({
      invitations: {
        limits: { perInviter: { max: 2, windowSeconds: 600 }, perOrganization: { max: 3, windowSeconds: 600 } },
      },
    });
    const ask = (by: string, i: number) => w.orgs.invite(by, w.id, { email: `p${i}@example.com`, role: "member" });
    expect((await ask("adam", 1)).ok).toBe(true);
    expect((await ask("adam", 2)).ok).toBe(true);
    const third = await ask("adam", 3);
    expect(third).toMatchObject({ ok: false, reason: "rate-limited" });
    expect(!third.ok && third.retryAfter).toBeGreaterThan(0);
    expect((await ask("olivia", 4)).ok).toBe(true);
    expect(await ask("olivia", 5)).toMatchObject({ ok: false, reason: "rate-limited" });
    expect(w.mails).toHaveLength(3);
  });
});
