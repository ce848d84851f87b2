/**
 * The demo's pages for teams, under /account (signed in): the organization switcher of the account
 * page, the members page (roles, removal, invitations by e-mail), the page an invitation's link
 * leads to, and the API-keys page; and /api/organization, the route a machine calls with a key.
 *
 * Every decision is Latchkey's: the pages call `Organizations` and `ApiKeys` with the signed-in
 * user's id, which read that user's role from the store on each call. The pages only hide what the
 * role may not do; a forced post is refused by the call itself (403), not by the page.
 */
import type { ApiKeyView } from "@latchkey/core/api-keys";
import type { OrganizationRefusal } from "@latchkey/core/organizations";
import { type AuthConfig, getCsrfToken, requireApiKey, requireCsrf } from "@latchkey/express";
import express, { type Request, type Response } from "express";
import type { DemoSession } from "./auth.js";
import { buttonForm, refusalBody, sameOrigin } from "./forms.js";
import { esc } from "./pages.js";
import type { Storage } from "./storage.js";
import { API_KEY_SCOPES, type DemoTeams, demoRoles } from "./teams.js";

export interface TeamPagesOptions {
  config: AuthConfig;
  storage: Storage;
  teams: DemoTeams;
  /** A whole page of the demo: its layout around `body`. */
  page: (title: string, body: string) => string;
}

/** Every role of the demo's organizations, in their declared order (owner, admin, member). */
const ROLES = Object.keys(demoRoles.declared);

/** What a refused call says to the person, and its status. */
const refusals: Record<OrganizationRefusal, { status: number; text: string }> = {
  "not-found": {
    status: 404,
    text: "Nothing of that kind is here for you (no such member, invitation or organization).",
  },
  forbidden: { status: 403, text: "Your role in this organization does not allow that." },
  "slug-taken": { status: 409, text: "Another organization has that short name: choose another." },
  exists: { status: 409, text: "You are a member of that organization already: the invitation is used up." },
  "unknown-role": { status: 400, text: "There is no such role." },
  "invalid-name": { status: 400, text: "A name is 1 to 100 visible characters." },
  "name-taken": { status: 409, text: "That name is taken." },
  "invalid-slug": {
    status: 400,
    text: "A short name is 1 to 48 lower-case letters, digits and inner hyphens (such as acme-eu).",
  },
  "last-owner": { status: 409, text: "An organization keeps at least one owner: make someone else an owner first." },
  changed: { status: 409, text: "That member's role changed meanwhile: nothing was done. Look again and retry." },
  "invalid-email": { status: 400, text: "That is not one e-mail address." },
  "rate-limited": { status: 429, text: "Too many invitations: try again later." },
  "mail-failed": { status: 502, text: "The invitation e-mail could not be sent: nothing was kept. Try again." },
  "wrong-address": {
    status: 403,
    text: "This invitation is for another e-mail address: sign in with the invited address (a sign-in by e-mail proves it), then open the link again.",
  },
};

/** What the members and API-keys pages say after a form, by `?notice=`. */
const notices: Record<string, string> = {
  invited: "The invitation was sent.",
  "invitation-revoked": "The invitation was revoked: its link no longer works.",
  "role-changed": "The role was changed.",
  removed: "The member was removed.",
  "key-revoked": "The key was revoked: it stops working at once.",
};

/**
 * The fields of a post, as the forms send them. Typed for the calls, checked by them: a field left
 * out, or repeated (urlencoded makes it an array), is refused by the call as any bad value is.
 */
type FormFields = Record<"name" | "slug" | "email" | "role" | "id" | "userId" | "token" | "days", string> & {
  scopes?: unknown;
};
const body = (req: Request) => (req.body ?? {}) as FormFields;

const when = (date: Date | null) => (date ? esc(date.toISOString().replace("T", " ").slice(0, 16)) : "never");

/** One `<select>` of roles. */
const roleSelect = (roles: string[], selected?: string) =>
  `<select name="role" aria-label="Role">${roles.map((r) => `<option${r === selected ? " selected" : ""}>${esc(r)}</option>`).join("")}</select>`;

/** The account page's section: the user's organizations with their role, the active one, switching and creating. */
export async function organizationSection(
  { teams }: TeamPagesOptions,
  session: DemoSession,
  csrfToken: string,
): Promise<string> {
  const mine = await teams.organizations.list(session.user.id ?? "");
  const active = session.activeOrganization ?? null;
  const activeView = active ? mine.find((m) => m.organization.id === active.id) : undefined;
  const rows = mine
    .map(({ organization, role }) => {
      const isActive = organization.id === active?.id;
      return `<tr data-slug="${esc(organization.slug)}"><td>${esc(organization.name)}</td><td><code>${esc(organization.slug)}</code></td><td class="role">${esc(role)}</td><td>${
        isActive
          ? "Active"
          : buttonForm(
              "/auth/organization",
              { organizationId: organization.id },
              "Switch to",
              csrfToken,
              "switch-organization inline",
            )
      }</td></tr>`;
    })
    .join("");
  return `<h2>Organizations</h2>
    <p id="active-organization">${
      activeView && active
        ? `Working in <strong>${esc(activeView.organization.name)}</strong> as <strong class="role">${esc(active.role)}</strong> · <a href="/account/members">Members</a> · <a href="/account/api-keys">API keys</a>`
        : "No active organization: switch to one below (its members page and API keys follow it)."
    }</p>
    ${rows ? `<table id="organizations"><tr><th>name</th><th>short name</th><th>your role</th><th></th></tr>${rows}</table>` : `<p id="organizations-note">You are in no organization yet: create one, or accept an invitation.</p>`}
    <p id="switch-error" class="alert" role="alert" hidden></p>
    <form id="create-organization" method="post" action="/account/organizations"><input type="hidden" name="csrfToken" value="${esc(csrfToken)}">
      <input name="name" required maxlength="100" placeholder="Name" aria-label="Organization name">
      <input name="slug" required maxlength="48" pattern="[a-z0-9]([a-z0-9-]*[a-z0-9])?" placeholder="short-name" aria-label="Short name">
      <button type="submit">Create organization</button></form>
    <script>
      // Switching goes through Latchkey's POST /auth/organization, which answers JSON and sets the
      // active organization's cookie once the store confirms the membership.
      for (const form of document.querySelectorAll("form.switch-organization")) form.addEventListener("submit", async (event) => {
        event.preventDefault();
        const answer = await fetch(form.action, { method: "POST", body: new URLSearchParams(new FormData(form)) });
        if (answer.ok) return location.assign("/account");
        const error = document.getElementById("switch-error");
        error.textContent = (await answer.json().catch(() => ({}))).message ?? "The organization could not be chosen.";
        error.hidden = false;
      });
    </script>`;
}

/** The routes of the pages, for the account router (which puts the signed-in session on `res.locals`). */
export function teamPages(options: TeamPagesOptions): express.Router {
  const { config, storage, teams, page } = options;
  const { organizations, apiKeys } = teams;
  const router = express.Router();
  const sessionOf = (res: Response) => res.locals.session as DemoSession;
  const userIdOf = (res: Response) => sessionOf(res).user.id ?? "";
  const refuse = (res: Response, reason: OrganizationRefusal, back: string) => {
    const { status, text } = refusals[reason];
    res.status(status).send(page("Not done", refusalBody(text, back)));
  };
  /** The active organization and the user's role there, or a page asking to choose one. */
  const activeOf = (res: Response) => {
    const active = sessionOf(res).activeOrganization;
    if (active) return active;
    res
      .status(409)
      .send(
        page(
          "No active organization",
          `<p id="refusal" class="alert" role="alert">Choose the organization to work in first, on <a href="/account">your account page</a>.</p>`,
        ),
      );
    return null;
  };
  const noticeOf = (req: Request) => {
    const notice = typeof req.query.notice === "string" ? notices[req.query.notice] : undefined;
    return notice ? `<p id="notice"><strong>${esc(notice)}</strong></p>` : "";
  };

  // Every post below carries the page's CSRF token (requireCsrf: 403 without it) and comes from
  // this origin: a form on another site, or on a sibling sub-domain, changes nothing.
  const form = [express.urlencoded({ extended: false, limit: "4kb" }), sameOrigin, requireCsrf(config)];

  router.post("/organizations", ...form, async (req, res) => {
    const created = await organizations.create(userIdOf(res), { name: body(req).name, slug: body(req).slug });
    if (!created.ok) return refuse(res, created.reason, "/account");
    res.redirect(303, "/account?notice=organization-created");
  });

  // The members page: of the active organization, with what the acting member's role allows.
  router.get("/members", async (req, res) => {
    const active = activeOf(res);
    if (!active) return;
    const me = userIdOf(res);
    const [view, members, invitations] = await Promise.all([
      organizations.get(me, active.id),
      organizations.members(me, active.id),
      organizations.invitations(me, active.id),
    ]);
    if (!view.ok || !members.ok) return refuse(res, view.ok ? "not-found" : view.reason, "/account");
    const myRole = view.value.role;
    const csrfToken = await getCsrfToken(req, res, config);
    // What the acting member may give or take away: only roles whose permissions are all their own.
    const grantable = ROLES.filter((r) => demoRoles.covers(myRole, r));
    const people = await Promise.all(members.value.map((m) => storage.adapter.getUser?.(m.userId) ?? null));
    const rows = members.value
      .map((m, i) => {
        const self = m.userId === me;
        const person = people[i];
        const manages = demoRoles.covers(myRole, m.role);
        const roles = self
          ? ROLES.filter((r) => demoRoles.covers(m.role, r))
          : demoRoles.can(myRole, "member:update-role") && manages
            ? grantable
            : [];
        const setRole =
          roles.length > 1
            ? `<form method="post" action="/account/members/role" class="set-role inline"><input type="hidden" name="csrfToken" value="${esc(csrfToken)}"><input type="hidden" name="userId" value="${esc(m.userId)}">${roleSelect(roles, m.role)}<button type="submit">Change role</button></form>`
            : "";
        const remove =
          self || (demoRoles.can(myRole, "member:remove") && manages)
            ? buttonForm(
                "/account/members/remove",
                { userId: m.userId },
                self ? "Leave" : "Remove",
                csrfToken,
                "remove-member inline",
              )
            : "";
        return `<tr data-email="${esc(person?.email ?? "")}"><td>${esc(person?.name ?? person?.email ?? m.userId)}${self ? " (you)" : ""}</td><td>${esc(person?.email ?? "")}</td><td class="role">${esc(m.role)}</td><td>${setRole} ${remove}</td></tr>`;
      })
      .join("");
    const mayInvite = demoRoles.can(myRole, "member:add");
    const inviteForm =
      mayInvite && teams.invitations
        ? `<h2>Invite someone</h2><p>They get an e-mail with a link (in this demo, at <a href="/dev/mail">/dev/mail</a>); it works once, for a week, for the invited address only (signed in with it, proven).</p>
           <form id="invite" method="post" action="/account/members/invite"><input type="hidden" name="csrfToken" value="${esc(csrfToken)}">
           <input name="email" type="email" required placeholder="name@example.com" aria-label="E-mail address">${roleSelect(grantable, "member")}<button type="submit">Invite</button></form>`
        : mayInvite
          ? `<p id="invite-note">Invitations are sent by e-mail: set EMAIL_SERVER and EMAIL_FROM.</p>`
          : `<p id="invite-note">Your role (${esc(myRole)}) does not invite: ask an owner or an admin.</p>`;
    const pending = invitations.ok
      ? `<h2>Pending invitations</h2>${
          invitations.value.length
            ? `<table id="invitations"><tr><th>address</th><th>role</th><th>expires (UTC)</th><th></th></tr>${invitations.value
                .map(
                  (inv) =>
                    `<tr data-email="${esc(inv.email)}"><td>${esc(inv.email)}</td><td>${esc(inv.role)}</td><td>${when(inv.expiresAt)}</td><td>${
                      demoRoles.covers(myRole, inv.role)
                        ? buttonForm("/account/members/invitations/revoke", { id: inv.id }, "Revoke", csrfToken)
                        : ""
                    }</td></tr>`,
                )
                .join("")}</table>`
            : `<p id="invitations-note">None.</p>`
        }`
      : "";
    res.send(
      page(
        `Members of ${view.value.organization.name}`,
        `${noticeOf(req)}<p id="my-role">Your role: <strong>${esc(myRole)}</strong>. <a href="/account">Switch organization</a></p>
         <table id="members"><tr><th>name</th><th>e-mail</th><th>role</th><th></th></tr>${rows}</table>
         ${inviteForm}${pending}`,
      ),
    );
  });

  router.post("/members/invite", ...form, async (req, res) => {
    const active = activeOf(res);
    if (!active) return;
    const invited = await organizations.invite(userIdOf(res), active.id, {
      email: body(req).email,
      role: body(req).role,
    });
    if (!invited.ok) return refuse(res, invited.reason, "/account/members");
    res.redirect(303, "/account/members?notice=invited");
  });

  router.post("/members/invitations/revoke", ...form, async (req, res) => {
    const active = activeOf(res);
    if (!active) return;
    const revoked = await organizations.revokeInvitation(userIdOf(res), active.id, body(req).id);
    if (!revoked.ok) return refuse(res, revoked.reason, "/account/members");
    res.redirect(303, "/account/members?notice=invitation-revoked");
  });

  router.post("/members/role", ...form, async (req, res) => {
    const active = activeOf(res);
    if (!active) return;
    const changed = await organizations.setRole(userIdOf(res), active.id, body(req).userId, body(req).role);
    if (!changed.ok) return refuse(res, changed.reason, "/account/members");
    res.redirect(303, "/account/members?notice=role-changed");
  });

  router.post("/members/remove", ...form, async (req, res) => {
    const active = activeOf(res);
    if (!active) return;
    const me = userIdOf(res);
    const removed = await organizations.removeMember(me, active.id, body(req).userId);
    if (!removed.ok) return refuse(res, removed.reason, "/account/members");
    // Who leaves has no members page there any more (their active organization reads as none).
    res.redirect(303, body(req).userId === me ? "/account?notice=left" : "/account/members?notice=removed");
  });

  // Where an invitation's link leads: a button, so that a mail scanner opening the link uses nothing up.
  router.get("/invitations/accept", async (req, res) => {
    const token = typeof req.query.token === "string" ? req.query.token : "";
    const csrfToken = await getCsrfToken(req, res, config);
    res.send(
      page(
        "Join an organization",
        `<p>You are signed in as <strong id="accepting-as">${esc(sessionOf(res).user.email)}</strong>. The invitation is for one address: accept it signed in with that one.</p>
         ${buttonForm("/account/invitations/accept", { token }, "Accept the invitation", csrfToken, "accept-invitation")}`,
      ),
    );
  });

  router.post("/invitations/accept", ...form, async (req, res) => {
    const accepted = await organizations.acceptInvitation(userIdOf(res), body(req).token);
    if (!accepted.ok) return refuse(res, accepted.reason, "/account");
    res.redirect(303, "/account?notice=joined");
  });

  // The API-keys page: the active organization's keys, for members who may manage them.
  router.get("/api-keys", async (req, res) => {
    const active = activeOf(res);
    if (!active) return;
    const listed = await apiKeys.list(userIdOf(res), { organizationId: active.id });
    if (!listed.ok) {
      return res
        .status(403)
        .send(
          page(
            "API keys",
            `<p id="refusal" class="alert" role="alert">Your role (${esc(active.role)}) does not manage this organization's API keys: ask an owner or an admin.</p>`,
          ),
        );
    }
    const csrfToken = await getCsrfToken(req, res, config);
    const scopes = API_KEY_SCOPES.filter((s) => demoRoles.can(active.role, s));
    res.send(page("API keys", `${noticeOf(req)}${apiKeysBody(listed.value, scopes, csrfToken)}`));
  });

  router.post("/api-keys", ...form, async (req, res) => {
    const active = activeOf(res);
    if (!active) return;
    const given = body(req).scopes;
    const days = Number(body(req).days);
    const created = await apiKeys.create(userIdOf(res), {
      name: body(req).name,
      organizationId: active.id,
      scopes: (given === undefined ? [] : Array.isArray(given) ? given : [given]) as string[],
      ...(days > 0 ? { expiresIn: days * 24 * 3600 } : {}),
    });
    if (!created.ok) {
      const status = created.reason === "forbidden" ? 403 : created.reason === "not-found" ? 404 : 400;
      return res
        .status(status)
        .send(
          page(
            "Not done",
            `<p id="refusal" class="alert" role="alert">The key was not made (${esc(created.reason)}).</p><p><a href="/account/api-keys">Back</a></p>`,
          ),
        );
    }
    // Shown this once: the store keeps only its hash.
    res.send(
      page(
        "API key created",
        `<p>Copy the key now: it is not shown again.</p><pre id="new-key">${esc(created.value.key)}</pre>
         <p>Try it: <code>curl -H "Authorization: Bearer &lt;key&gt;" ${esc(`${req.protocol}://${req.get("host")}`)}/api/organization</code></p>
         <p><a class="button" href="/account/api-keys">Done</a></p>`,
      ),
    );
  });

  router.post("/api-keys/revoke", ...form, async (req, res) => {
    const revoked = await apiKeys.revoke(userIdOf(res), body(req).id);
    if (!revoked.ok)
      return refuse(res, revoked.reason === "forbidden" ? "forbidden" : "not-found", "/account/api-keys");
    res.redirect(303, "/account/api-keys?notice=key-revoked");
  });

  return router;
}

/** The API-keys page's list and form. */
function apiKeysBody(keys: ApiKeyView[], scopes: readonly string[], csrfToken: string): string {
  const now = Date.now();
  const state = (k: ApiKeyView) =>
    k.revokedAt ? "revoked" : k.expiresAt && k.expiresAt.getTime() <= now ? "expired" : "live";
  const rows = keys
    .map(
      (k) =>
        `<tr data-key="${esc(k.id)}"><td>${esc(k.name)}</td><td><code>demo_${esc(k.id)}_…</code></td><td>${esc(k.scopes.join(" ") || "none")}</td><td>${when(k.createdAt)}</td><td class="last-used">${when(k.lastUsedAt)}</td><td class="state">${state(k)}${k.expiresAt ? ` (until ${when(k.expiresAt)})` : ""}</td><td>${
          state(k) === "live" ? buttonForm("/account/api-keys/revoke", { id: k.id }, "Revoke", csrfToken) : ""
        }</td></tr>`,
    )
    .join("");
  return `<p>Keys let a program call this organization's API (<code>GET /api/organization</code>, with <code>Authorization: Bearer &lt;key&gt;</code> and the <code>project:read</code> scope). A key carries only scopes your role holds.</p>
    ${rows ? `<table id="api-keys"><tr><th>name</th><th>key</th><th>scopes</th><th>created (UTC)</th><th>last used (UTC)</th><th>state</th><th></th></tr>${rows}</table>` : `<p id="api-keys-note">No keys yet.</p>`}
    <h2>Create a key</h2>
    <form id="create-api-key" method="post" action="/account/api-keys"><input type="hidden" name="csrfToken" value="${esc(csrfToken)}">
      <input name="name" required maxlength="100" placeholder="CI deploys" aria-label="Key name">
      ${scopes.map((s) => `<label><input type="checkbox" name="scopes" value="${esc(s)}"${s === "project:read" ? " checked" : ""}> ${esc(s)}</label>`).join(" ")}
      <select name="days" aria-label="Expires"><option value="0">never expires</option><option value="30">expires in 30 days</option><option value="365">expires in a year</option></select>
      <button type="submit">Create key</button></form>`;
}

/**
 * The API a program calls with an organization's key: `GET /api/organization` answers which
 * organization the key opens and what it may do. requireApiKey answers anything else (no key,
 * a revoked or expired one, a missing scope) with 401 or 403 and `WWW-Authenticate`.
 */
export function demoApi({ teams, storage }: Pick<TeamPagesOptions, "teams" | "storage">): express.Router {
  const router = express.Router();
  router.get("/api/organization", requireApiKey(teams.apiKeys, { scopes: ["project:read"] }), async (_req, res) => {
    const key = res.locals.apiKey;
    const organization = key?.organizationId ? await storage.organizations.getOrganization(key.organizationId) : null;
    if (!key || !organization) return void res.status(404).json({ error: "not_found" });
    res.set("Cache-Control", "no-store").json({
      organization: { id: organization.id, name: organization.name, slug: organization.slug },
      key: { id: key.id, name: key.name, scopes: key.scopes },
    });
  });
  return router;
}
