import { inspect } from "#platform";
import type { LoggerInstance } from "../../shapes/data.js";
import { type Application, held, slot } from "./application.js";
import { fieldOf } from "./merge.js";

/** Warnings Latchkey logs through `logger.warn`. */
export type WarningCode =
  | "debug-enabled"
  | "csrf-disabled"
  | "experimental-webauthn"
  | "env-url-basepath-mismatch"
  | "unknown-option"
  | "trust-proxy-all"
  | "unverified-email-released"
  | "session-secret-mismatch"
  | "revocation-unavailable"
  | "revocation-restored"
  | "session-cache-unavailable"
  | "session-cache-restored"
  | "session-cache-push-failed"
  | "audit-bounded"
  | "refresh-token-missing"
  | "jwt-callback-changed-subject"
  | "passkey-authenticator-kept"
  | "session-callback-returned-token"
  | "adapter-extensions-missing"
  | "credentials-identifier-secret"
  | "second-factor-profile-omitted"
  | "forwarded-proto-untrusted"
  | "forwarded-host-ignored"
  | "require-auth-mount"
  | "client-address-missing"
  | "memory-state-isolated"
  | "applications-many"
  | "application-registry-foreign";

/** True for the code of one of Latchkey's warnings (which `warningText` describes). */
function isWarningCode(code: string): code is WarningCode {
  return Object.hasOwn(warningText, code);
}

const warningText: Record<WarningCode, string> = {
  "debug-enabled": "Debug logging is on; it may log secrets and personal data. Turn `debug` off in production.",
  "csrf-disabled": "The CSRF check is off (`skipCSRFCheck`). Only do this when the framework checks CSRF itself.",
  "experimental-webauthn": "WebAuthn is experimental: its API may change or be removed without notice.",
  "env-url-basepath-mismatch": "AUTH_URL has a path and `basePath` is set; the path of AUTH_URL is ignored.",
  "unknown-option": "The configuration has an option Latchkey does not know; it is ignored.",
  "trust-proxy-all":
    "Express's `trust proxy` is `true`: the client address is then the leftmost X-Forwarded-For, which any client can write, so per-client rate limits can be dodged. Set it to the number of proxies in front of the app (e.g. 1) or their subnet.",
  "forwarded-proto-untrusted":
    'A request says `X-Forwarded-Proto: https` but came over http from a proxy Express does not trust, so it is read as http: links are built with http:// and cookies lose `Secure`. Behind a proxy you control, tell Express how many proxies there are: `app.set("trust proxy", 1)`; or set AUTH_URL to the application\'s https URL.',
  "forwarded-host-ignored":
    'A request names, in `X-Forwarded-Host`, `X-Forwarded-Proto` or `Forwarded`, another host or https, and Latchkey reads none of them without a proxy you name (any client can send them): links, redirects and cookies follow `Host` over http, and no e-mailed link is built from a host the request names. Behind a proxy you control that overwrites these headers, set `trustProxy: true` (AUTH_TRUST_PROXY=true; `"forwarded"` for the Forwarded header), or set AUTH_URL to the application\'s URL.',
  "require-auth-mount":
    '`requireAuth(config)` sends browsers to a sign-in page that `ExpressAuth(config)` does not serve (it is mounted elsewhere): set `basePath` in the configuration to the path you mounted it on (`app.use("/api/auth", ExpressAuth(config))` needs `basePath: "/api/auth"`), or give `requireAuth` its `signInPage`.',
  "client-address-missing":
    'Next.js gives Latchkey no client address, and the configuration has no `clientAddress`: the credentials, e-mail and passkey rate limits then count per identifier alone, so anyone can make an account wait out the window (a lock-out), and nothing limits one address. Set `clientAddress: (request) => request.headers.get("x-real-ip")` (the header your proxy overwrites with the address it sees), or the last `X-Forwarded-For` entry when exactly one proxy of yours appends it; never the first entry, which any client writes (Next.js keeps the one a client sent). `rateLimit: false` turns the limits off instead.',
  "unverified-email-released":
    "An e-mail address held by a user who never proved it was given to a new user who did (possible account pre-hijacking; see the `unverifiedEmailReleased` event).",
  "session-secret-mismatch":
    "A session cookie was sealed with a secret that is not configured (or forged), so its user is signed out. If you rotated `secret` (AUTH_SECRET), keep the retired one after the new one until old sessions expire: `secret: [NEW, OLD]` (AUTH_SECRET_1, ...). Logged once; later ones only at debug level.",
  "revocation-unavailable":
    "The revocation list of JWT sessions cannot be kept current (its store does not answer); `session.revocation.onUnavailable` decides whether JWT sessions are refused or served meanwhile.",
  "revocation-restored": "The revocation store answers again; the revocation list of JWT sessions was reloaded.",
  "session-cache-unavailable":
    "The session cache cannot hear of changes (its channel is down): every database session read goes to the database until the channel is back.",
  "session-cache-restored": "The session cache's channel is back: database session reads are cached again.",
  "session-cache-push-failed":
    "A change of database sessions could not be pushed to the other instances; they drop it within `session.cache.maxAge`.",
  "audit-bounded": "More audit records than the bound allows in this window; the rest of the window is not recorded.",
  "refresh-token-missing":
    "getAccessToken found an expired access token and no refresh token: the provider was not asked for offline access.",
  "jwt-callback-changed-subject":
    "The `jwt` callback returned a token with another (or no) `sub` than the signed-in session's; the session keeps its user. Whose session it is is decided at sign-in: to act as another user, sign in as that user. A callback that merges the client's update into the token (`{ ...token, ...session }`) lets a client try exactly this: pick the fields you accept.",
  "credentials-identifier-secret":
    "A credentials provider's identifier() returned the value of a password field: its attempts are counted against the provider as a whole. Return what names the account, never the secret being guessed.",
  "passkey-authenticator-kept":
    "A passkey was unlinked but the adapter has no `deleteAuthenticator`, so its authenticator record stays: the passkey signs nobody in (its account is gone), but it cannot be registered again until that record is deleted.",
  "session-callback-returned-token":
    "The `session` callback returned the session token (the HttpOnly session cookie's value); it was removed from the answer, which `GET /session` hands to any script on the page. Return only what the browser needs (`{ ...session, user: { ...session.user, id: user.id } }` carries no token).",
  "second-factor-profile-omitted":
    "Under database sessions the provider's profile did not fit into the second factor's pending sign-in (a cookie bounded to 4 KiB): the sign-in goes on, and `events.signIn` at the code step receives no `profile` for it.",
  "memory-state-isolated":
    "This runtime may run the application in more than one process or global (an Edge runtime, a serverless platform), and Latchkey keeps some of its safety state in this process's memory: rate limits, `session.revocation: true` and `session.cache: true` then hold per process only. Give them shared stores: `rateLimit: { store: new RedisRateLimitStore(redis) }`, `session.revocation: { store: new RedisRevocationStore(...) }` or a `SqlRevocationStore`, `session.cache: { channel: ... }`.",
  "applications-many":
    "More than 1,000 applications (distinct secrets) have been configured in this process; each keeps its own rate limits, revocations and caches, held for the life of the process. A configuration that makes a new `secret` per request is the usual cause: give the application one secret (a list while rotating).",
  "application-registry-foreign":
    "Another copy of @latchkey/core of an incompatible version runs in this process: the two keep their rate limits, revocations and session caches apart. Install one version of @latchkey/core (npm ls @latchkey/core).",
  "adapter-extensions-missing":
    "The adapter lacks some of Latchkey's optional methods (an Auth.js adapter has none of them): sign-in and sessions work as under Auth.js; the functions that need them throw MissingAdapterMethods, and the options that need them are refused at start.",
};

// Everything that can end or disguise a log line: C0 controls (CR, LF, ...), DEL, C1 controls
// (U+0085 NEL among them), the Unicode line and paragraph separators, and the bidirectional
// overrides and isolates that reorder what a terminal shows.
const UNSAFE_IN_LOG = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;
const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/**
 * A value from outside (a provider's `error_description`, a request path, an e-mail address) made
 * safe to print on one log line: every character that could end the line or disguise it is
 * written as an escape (`\n`, `\r`, `\t`, `\u2028`, ...), so nobody can forge a log entry.
 *
 * @example
 * ```ts
 * escapeForLog("denied\n[ERROR] forged") // "denied\\n[ERROR] forged"
 * ```
 */
export function escapeForLog(text: string): string {
  return text.replace(UNSAFE_IN_LOG, (c) => NAMED[c] ?? `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`);
}

/** Any value as one escaped line: strings as they are, everything else as `util.inspect` shows it. */
function oneLine(value: unknown): string {
  const text = typeof value === "string" ? value : inspect(value);
  return escapeForLog(text);
}

/**
 * The lines of an error's stack: its header (name and message, which may carry outside text) on
 * one escaped line, then V8's frames, one line each. A stack that does not start with the header
 * (changed after the error was made) is printed as one escaped line.
 */
function stackLines(err: Error): string[] {
  const header = err.message ? `${err.name}: ${err.message}` : err.name;
  const stack = typeof err.stack === "string" ? err.stack : "";
  if (!stack.startsWith(header)) return [oneLine(stack || header)];
  const frames = stack
    .slice(header.length)
    .split("\n")
    .filter((line) => line.trim() !== "");
  return [oneLine(header), ...frames.map(oneLine)];
}

/**
 * Builds the logger: the defaults print to the console, one escaped line per message (a stack adds
 * one line per frame); the caller may replace any method, and then prints what it likes.
 */
export function createLogger(custom: Partial<LoggerInstance> | undefined, debug: boolean): LoggerInstance {
  const logger: LoggerInstance = {
    error(error) {
      const type = fieldOf(error, "type") ?? error.name;
      let cause = fieldOf(error, "cause");
      const firstErr = cause instanceof Error ? cause : fieldOf(cause, "err");
      // Details without an underlying error (a provider's error answer, say) stay on the same line.
      const details = cause !== undefined && !(firstErr instanceof Error) ? ` ${oneLine(cause)}` : "";
      console.error(`[latchkey][error] ${oneLine(String(type))}: ${oneLine(error.message)}${details}`);
      for (let depth = 0; cause && depth < 5; depth++) {
        const err = cause instanceof Error ? cause : fieldOf(cause, "err");
        if (!(err instanceof Error)) {
          // The first level's details are already on the error's line.
          if (depth > 0) console.error(`[latchkey][cause] ${oneLine(cause)}`);
          break;
        }
        const [header, ...frames] = stackLines(err);
        console.error([`[latchkey][cause] ${header}`, ...frames].join("\n"));
        cause = err.cause;
      }
    },
    warn(code, detail) {
      const text = detail ?? (isWarningCode(code) ? warningText[code] : "");
      console.warn(`[latchkey][warn][${oneLine(code)}] ${oneLine(text)}`.trimEnd());
    },
    debug(message, metadata) {
      if (!debug) return;
      const extra = metadata === undefined ? "" : ` ${oneLine(metadata)}`;
      console.log(`[latchkey][debug] ${oneLine(message)}${extra}`);
    },
  };
  if (custom?.error) logger.error = custom.error;
  if (custom?.warn) logger.warn = custom.warn;
  if (custom?.debug) {
    const userDebug = custom.debug;
    logger.debug = (message, metadata) => {
      if (debug) userDebug(message, metadata);
    };
  }
  return logger;
}

/** What {@link warnOnce} reads of a resolved configuration. */
export interface WarningTarget {
  readonly application: Application;
  readonly logger: LoggerInstance;
  /** The application's own configuration object; its `logger` names the log a warning went to. */
  readonly source: { readonly logger?: unknown };
}

/** The log a warning goes to when the configuration names none: the console. */
const CONSOLE = {};

/** The warnings each log of an application has heard, by the logger object the configuration gave. */
const warned = slot("warned", () => new WeakMap<object, Set<string>>());

/**
 * Logs a warning once per application and log, however many requests and configuration objects
 * (one per request, per copy, per server layer) cause it: each logger the configurations name
 * (and the console, when they name none) hears it once.
 */
export function warnOnce(config: WarningTarget, code: WarningCode, detail?: string): void {
  const sink = config.source.logger;
  const key = typeof sink === "object" && sink !== null ? sink : CONSOLE;
  const heard = held(config.application, warned);
  let codes = heard.get(key);
  if (!codes) {
    codes = new Set();
    heard.set(key, codes);
  }
  if (codes.has(code)) return;
  codes.add(code);
  config.logger.warn(code, detail);
}

/** A logger in the style of pino (Fastify's, ...): a record of fields first, then the message. */
export interface StructuredLog {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  debug(fields: object, message: string): void;
}

/**
 * Latchkey's log lines written to a structured logger instead of the console: an error under
 * `err` with its `type` and its chain of `causes`, a warning with its `code` and the text the console would print,
 * debug messages with their metadata. The logger serializes, so nothing needs escaping here.
 *
 * @example
 * ```ts
 * const config = { ...options, logger: options.logger ?? structuredLogger(fastify.log) }
 * ```
 */
export function structuredLogger(log: StructuredLog): LoggerInstance {
  return {
    error(error) {
      const fields: Record<string, unknown> = { err: error, type: fieldOf(error, "type") ?? error.name };
      // The causes, as the console's [cause] lines show them (a logger's error serializer drops them).
      const causes: unknown[] = [];
      let cause = fieldOf(error, "cause");
      for (let depth = 0; cause !== undefined && depth < 5; depth++) {
        const err = cause instanceof Error ? cause : fieldOf(cause, "err");
        if (!(err instanceof Error)) {
          causes.push(cause);
          break;
        }
        causes.push({ type: err.name, message: err.message, stack: err.stack });
        cause = err.cause;
      }
      if (causes.length) fields.causes = causes;
      log.error(fields, error.message);
    },
    warn: (code, detail) =>
      log.warn({ code }, `[latchkey] ${detail ?? (isWarningCode(code) ? warningText[code] : code)}`),
    debug: (message, metadata) => log.debug(metadata === undefined ? {} : { metadata }, `[latchkey] ${message}`),
  };
}
