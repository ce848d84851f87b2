/**
 * The demo's admin tools (`@latchkey/core/admin`) and their page, /account/admin: search users,
 * ban one with a reason and an expiry (every session of theirs ends at once, their API keys are
 * revoked, and every sign-in of theirs is refused until it ends), unban. The demo user is the
 * owner, fixed in code; who may act is decided by `Admin` on every call, never by the page.
 */
import { Admin, type AdminApi, type AdminRefusal, type AdminUserView } from "@latchkey/core/admin";
import type { ApiKeysApi } from "@latchkey/core/api-keys";
import { MissingAdapterMethods } from "@latchkey/core/errors";
import { type AuthConfig, getCsrfToken, requireCsrf } from "@latchkey/express";
import express, { type Request, type Response } from "express";
import type { DemoSession } from "./auth.js";
import { buttonForm, refusalBody, sameOrigin } from "./forms.js";
import { esc } from "./pages.js";
import type { Storage } from "./storage.js";

/** The admin tools of the demo: `ownerId` (the demo user) may use them; a ban also revokes the user's API keys. */
export function demoAdmin(config: AuthConfig, storage: Storage, ownerId: string, apiKeys: ApiKeysApi): AdminApi {
  return Admin(config, { store: storage.admin, admins: { userIds: [ownerId] }, apiKeys });
}

/** What a refused call says, and its status. */
/** What the admin page says on a storage whose adapter cannot list users (Redis). */
const SEARCH_NEEDS_SQL =
  "Searching users needs an adapter that can list them: start the demo on SQLite (the default) or DATABASE_URL, not REDIS_URL.";

const refusals: Record<AdminRefusal, { status: number; text: string }> = {
  forbidden: { status: 403, text: "You may not use the admin tools, or not for that." },
  self: { status: 409, text: "An admin does not act on themselves." },
  protected: {
    status: 403,
    text: "That user is an owner or an admin: only an owner acts on an admin, and nobody on an owner.",
  },
  "invalid-reason": { status: 400, text: "A reason is 1 to 500 visible characters." },
  "invalid-expiry": { status: 400, text: "The ban must end in the future, or never." },
  "unknown-role": { status: 400, text: "There is no such role." },
  "invalid-query": { status: 400, text: "A search is at most 200 visible characters." },
  "invalid-user": { status: 400, text: "There is no such user." },
  "not-found": { status: 404, text: "That user is not banned." },
  changed: { status: 409, text: "That user's role changed meanwhile: nothing was done. Look again and retry." },
};

const notices: Record<string, string> = {
  banned: "The user is banned: their sessions ended and their API keys were revoked.",
  unbanned: "The ban was lifted: the user can sign in again.",
};

/** How long a ban lasts, by the form's `days` (0: until lifted). */
const DURATIONS = [
  { days: "1", label: "for a day" },
  { days: "7", label: "for a week" },
  { days: "0", label: "until lifted" },
];

const when = (date: Date | null) => (date ? esc(date.toISOString().replace("T", " ").slice(0, 16)) : "");

/** The rows of users found, with what may be done to each. */
function userRows(users: AdminUserView[], me: string, csrfToken: string): string {
  return users
    .map(({ user, role, ban }) => {
      const state = ban
        ? `banned${ban.expiresAt ? ` until ${when(ban.expiresAt)} UTC` : ""}${ban.reason ? `: ${esc(ban.reason)}` : ""}`
        : "active";
      const action =
        user.id === me
          ? "you"
          : ban
            ? buttonForm("/account/admin/unban", { userId: user.id }, "Unban", csrfToken, "unban inline")
            : `<form method="post" action="/account/admin/ban" class="ban inline"><input type="hidden" name="csrfToken" value="${esc(csrfToken)}"><input type="hidden" name="userId" value="${esc(user.id)}">
               <input name="reason" required maxlength="500" placeholder="Reason" aria-label="Reason"><select name="days" aria-label="How long">${DURATIONS.map((d) => `<option value="${d.days}">${d.label}</option>`).join("")}</select><button type="submit">Ban</button></form>`;
      return `<tr data-email="${esc(user.email ?? "")}"><td>${esc(user.name ?? "")}</td><td>${esc(user.email ?? "")}</td><td>${esc(role ?? "")}</td><td class="state">${state}</td><td>${action}</td></tr>`;
    })
    .join("");
}

/** The admin page's routes, for the account router (the signed-in session on `res.locals`). */
export function adminPage(options: {
  config: AuthConfig;
  admin: AdminApi;
  page: (title: string, body: string) => string;
}): express.Router {
  const { config, admin, page } = options;
  const router = express.Router();
  const userIdOf = (res: Response) => (res.locals.session as DemoSession).user.id ?? "";
  const refuse = (res: Response, reason: AdminRefusal) => {
    const { status, text } = refusals[reason];
    res.status(status).send(page("Not done", refusalBody(text, "/account/admin")));
  };
  const field = (req: Request, name: string): unknown => req.body?.[name];

  router.get("/admin", async (req, res) => {
    const query = typeof req.query.q === "string" ? req.query.q : "";
    const cursor = typeof req.query.after === "string" ? req.query.after : undefined;
    let found: Awaited<ReturnType<AdminApi["listUsers"]>>;
    try {
      found = await admin.listUsers(userIdOf(res), { query, limit: 20, ...(cursor && { cursor }) });
    } catch (e) {
      // The Redis storage's adapter cannot list users: the page says so instead of failing.
      if (!(e instanceof MissingAdapterMethods)) throw e;
      res.status(501).send(page("Admin", refusalBody(SEARCH_NEEDS_SQL, "/account")));
      return;
    }
    if (!found.ok) return refuse(res, found.reason);
    const csrfToken = await getCsrfToken(req, res, config);
    const notice = typeof req.query.notice === "string" ? notices[req.query.notice] : undefined;
    const { users, nextCursor } = found.value;
    res.send(
      page(
        "Admin",
        `${notice ? `<p id="notice"><strong>${esc(notice)}</strong></p>` : ""}
         <form id="search" method="get" action="/account/admin"><input name="q" value="${esc(query)}" maxlength="200" placeholder="E-mail or name" aria-label="Search users"><button type="submit">Search</button></form>
         ${users.length ? `<table id="users"><tr><th>name</th><th>e-mail</th><th>role</th><th>state</th><th></th></tr>${userRows(users, userIdOf(res), csrfToken)}</table>` : `<p id="users-note">No user matches.</p>`}
         ${nextCursor ? `<p><a id="next-page" href="/account/admin?${new URLSearchParams({ q: query, after: nextCursor })}">Next page</a></p>` : ""}`,
      ),
    );
  });

  const form = [express.urlencoded({ extended: false, limit: "4kb" }), sameOrigin, requireCsrf(config)];

  router.post("/admin/ban", ...form, async (req, res) => {
    // Only the lengths the form offers: a value it does not offer never becomes a ban for good.
    const duration = DURATIONS.find((d) => d.days === field(req, "days"));
    if (!duration) return refuse(res, "invalid-expiry");
    const days = Number(duration.days);
    const reason = field(req, "reason");
    const banned = await admin.ban(userIdOf(res), field(req, "userId") as string, {
      ...(reason !== undefined && reason !== "" && { reason: reason as string }),
      ...(days > 0 && { expiresAt: new Date(Date.now() + days * 24 * 3600 * 1000) }),
    });
    if (!banned.ok) return refuse(res, banned.reason);
    res.redirect(303, "/account/admin?notice=banned");
  });

  router.post("/admin/unban", ...form, async (req, res) => {
    const unbanned = await admin.unban(userIdOf(res), field(req, "userId") as string);
    if (!unbanned.ok) return refuse(res, unbanned.reason);
    res.redirect(303, "/account/admin?notice=unbanned");
  });

  return router;
}
