// What the resolved configuration runs on requests, beside the application's own code: the default
// callbacks, and what the application hands in, guarded: its adapter (the methods a configuration
// needs; each call bounded in time, its failure named) and its event handlers (a throw is logged,
// never the request's). Made when the configuration is built (build.ts), called by every flow.
import type { Adapter } from "../../shapes/adapters.js";
import type { LoggerInstance } from "../../shapes/data.js";
import type { JWT } from "../../shapes/jwt.js";
import { errorOf } from "../base/error-of.js";
import { AdapterError, EventError } from "../base/errors.js";
import { secondFactorMethods } from "../flows/second-factor/secret.js";
import { webauthnAdapterMethods } from "../flows/webauthn/config.js";
import { defaultRedirect } from "../http/redirect.js";
import { adapterMethods } from "../stores/records.js";
import { missingSchemaAdvice } from "./advice.js";
import type { CallbacksOptions, EventCallbacks, SessionOptions } from "./options.js";
import type { InternalProvider } from "./types.js";

/** A date as the client gets it: an ISO string (a database session's `expires` is a Date). */
function isoDate(value: string | Date): string {
  return value instanceof Date ? value.toISOString() : value;
}

export const defaultCallbackSet: CallbacksOptions = {
  signIn: () => true,
  redirect: defaultRedirect,
  session: ({ session }) => ({
    user: { name: session.user?.name, email: session.user?.email, image: session.user?.image },
    // database sessions carry a Date; the client always gets an ISO string
    expires: isoDate(session.expires),
  }),
  jwt: ({ token }: { token: JWT }) => token,
};

// What each feature asks of an adapter, as Auth.js asks it (an adapter that works with Auth.js
// resolves here too): database sessions need the user, account and session methods; e-mail
// sign-in only its tokens and the lookup by address; WebAuthn its authenticators. A method a
// particular sign-in needs beyond these (creating the user of a new address under JWT
// sessions) is checked when that sign-in runs, with the same error.
const databaseSessionMethods = [
  "createUser",
  "getUser",
  "getUserByEmail",
  "getUserByAccount",
  "updateUser",
  "linkAccount",
  "createSession",
  "getSessionAndUser",
  "updateSession",
  "deleteSession",
];
const emailMethods = ["createVerificationToken", "useVerificationToken", "getUserByEmail"];
const accountMethods = ["createUser", "getUser", "getUserByAccount", "getUserByEmail", "linkAccount"];

/** The adapter methods the chosen strategy and providers need. */
export function requiredAdapterMethods(strategy: SessionOptions["strategy"], providers: InternalProvider[]): string[] {
  const needed = new Set<string>(strategy === "database" ? databaseSessionMethods : []);
  for (const p of providers) {
    const methods =
      p.type === "email"
        ? emailMethods
        : p.type === "webauthn"
          ? webauthnAdapterMethods
          : p.type === "totp"
            ? secondFactorMethods
            : p.type === "oauth" || p.type === "oidc" || (p.type === "credentials" && strategy === "database")
              ? accountMethods
              : [];
    for (const m of methods) needed.add(m);
  }
  return [...needed];
}

/**
 * Lookups by a key, with what they answer for "no such record". Their keys often come from the
 * client (a session cookie) and a store may not hold every string: PostgreSQL refuses U+0000 in
 * text, failing the query. A key with U+0000 names no record in any store, so these answer
 * "none" without asking it: no error, no 5xx, the same on every store.
 */
const lookups: Partial<Record<(typeof adapterMethods)[number], null | undefined>> = {
  getUser: null,
  getUserByEmail: null,
  getUserByAccount: null,
  getAccount: null,
  getSessionAndUser: null,
  getAuthenticator: null,
  deleteAuthenticator: null,
  useVerificationToken: null,
  deleteSession: undefined,
  unlinkAccount: undefined,
};

/** True when a lookup's arguments (strings, or strings one level inside a key object) hold U+0000. */
function unstorableKey(args: unknown[]): boolean {
  const holdsNul = (v: unknown) => typeof v === "string" && v.includes("\u0000");
  return args.some((a) => holdsNul(a) || (typeof a === "object" && a !== null && Object.values(a).some(holdsNul)));
}

/**
 * Wraps every adapter method so a failure becomes an `AdapterError` naming the method, and so a
 * store that stops answering (packets dropped, a client queueing commands while it reconnects)
 * fails after `timeoutMs` instead of holding the request forever. A lookup by a key no store can
 * hold answers "none" at once (see `lookups`).
 */
export function guardAdapter(adapter: Adapter, timeoutMs: number): Adapter {
  const guarded: Record<string, unknown> = {};
  for (const name of adapterMethods) {
    const method = adapter[name] as ((...args: unknown[]) => unknown) | undefined;
    if (typeof method !== "function") continue;
    const none = Object.hasOwn(lookups, name) ? { answer: lookups[name] } : undefined;
    guarded[name] = async (...args: unknown[]) => {
      if (none && unstorableKey(args)) return none.answer;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        return await Promise.race([method.apply(adapter, args), timeout]);
      } catch (e) {
        if (e instanceof AdapterError) throw e;
        const advice = missingSchemaAdvice(e);
        const message = `Adapter method \`${name}\` failed${advice ? `: ${advice}` : ""}`;
        throw new AdapterError(message, { err: errorOf(e), method: name });
      } finally {
        clearTimeout(timer);
      }
    };
  }
  if (typeof adapter.transaction === "function") {
    const transaction = adapter.transaction.bind(adapter);
    guarded.transaction = <T>(work: (tx: Adapter) => Promise<T>) =>
      transaction((tx) => work(guardAdapter(tx, timeoutMs)));
  }
  return guarded as Adapter;
}

/** The event handlers, each awaited with its throw logged (an event never fails the request). */
export function guardEvents(
  events: Partial<EventCallbacks> | undefined,
  logger: LoggerInstance,
): Partial<EventCallbacks> {
  const out: Record<string, (message: unknown) => Promise<void>> = {};
  for (const [name, handler] of Object.entries(events ?? {})) {
    if (typeof handler !== "function") continue;
    out[name] = async (message: unknown) => {
      try {
        await (handler as (m: unknown) => unknown)(message);
      } catch (e) {
        logger.error(new EventError(`The \`${name}\` event handler threw`, { err: errorOf(e) }));
      }
    };
  }
  return out as Partial<EventCallbacks>;
}
