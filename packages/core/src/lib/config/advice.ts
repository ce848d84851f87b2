/**
 * What a newcomer gets wrong in a configuration and no type checker caught (JavaScript users have
 * none): misspelled option names on the configuration or a provider, a provider without its
 * client id, a secret from the environment that is too short, and a database whose tables were
 * never created. Each check names the fix; resolution (config.ts) calls them.
 */

import type { Provider } from "../../providers/index.js";
import type { LoggerInstance } from "../../shapes/data.js";
import { InvalidProvider } from "../base/errors.js";
import { fieldOf, isPlainObject } from "../base/merge.js";
import type { AuthConfig } from "./options.js";

const knownOptions = [
  "providers",
  "secret",
  "session",
  "jwt",
  "pages",
  "theme",
  "callbacks",
  "events",
  "adapter",
  "debug",
  "logger",
  "useSecureCookies",
  "cookies",
  "trustHost",
  "trustedOrigins",
  "trustProxy",
  "skipCSRFCheck",
  "raw",
  "basePath",
  "redirectProxyUrl",
  "experimental",
  "adapterTimeout",
  "rateLimit",
  "clientAddress",
  "accessTokens",
  "audit",
  "organizations",
  "admin",
] as const;

// The options of OAuth 2 and OpenID Connect providers (OAuth2Config, OIDCConfig), and the ones
// particular factories take besides (GitHub's `enterprise`, GitLab's `baseUrl`, ...).
const oauthOptions = [
  "id",
  "name",
  "type",
  "issuer",
  "wellKnown",
  "authorization",
  "token",
  "userinfo",
  "profile",
  "account",
  "checks",
  "clientId",
  "clientSecret",
  "client",
  "style",
  "allowDangerousEmailAccountLinking",
  "isEmailVerified",
  "redirectProxyUrl",
  "idToken",
  "enterprise",
  "baseUrl",
  "tenantId",
  "profilePhotoSize",
  "fields",
  "authorizationUrl",
  "accessTokenUrl",
  "requestTokenUrl",
  "connection",
  "organization",
  "provider",
];
const credentialsOptions = ["id", "name", "type", "credentials", "authorize", "identifier", "databaseSessions"];

/** Levenshtein distance, for "did you mean" hints on misspelled option names. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      // Every index read here was written (row 0 holds 0..b.length, each row starts with i).
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** `; did you mean \`x\`?` when one of `known` is close to `key` (case aside), else "". */
function didYouMean(key: string, known: readonly string[]): string {
  const lower = key.toLowerCase();
  const score = (name: string) => Math.min(distance(key, name), distance(lower, name.toLowerCase()));
  const closest = [...known].sort((a, b) => score(a) - score(b))[0];
  if (closest === undefined) return "";
  return score(closest) <= Math.max(2, Math.floor(key.length / 3)) ? `; did you mean \`${closest}\`?` : "";
}

/** Warns about top-level options Latchkey does not know (a typo silently changes nothing). */
export function warnUnknownOptions(config: AuthConfig, logger: LoggerInstance): void {
  for (const key of Object.keys(config)) {
    if (knownOptions.some((known) => known === key)) continue;
    logger.warn("unknown-option", `\`${key}\` is not a Latchkey option and is ignored${didYouMean(key, knownOptions)}`);
  }
}

/**
 * Warns about the options of an OAuth, OpenID Connect or credentials provider that no provider
 * reads (`clientID`, `authorise`): the caller's `options` of a factory, or the keys of a provider
 * given as a plain object. Other provider types are not checked.
 *
 * @example
 * ```ts
 * warnUnknownProviderOptions(GitHub({ clientID: "x" }), logger) // "... did you mean `clientId`?"
 * ```
 */
export function warnUnknownProviderOptions(entry: Provider, logger: LoggerInstance): void {
  const provider: unknown = typeof entry === "function" ? entry() : entry;
  if (!isPlainObject(provider)) return;
  const type = provider.type;
  const known =
    type === "oauth" || type === "oidc" ? oauthOptions : type === "credentials" ? credentialsOptions : undefined;
  if (!known) return;
  const given = provider.options ?? provider;
  if (!isPlainObject(given)) return;
  // Whatever the factory itself sets is known to it, even if this list does not have it.
  const own = new Set([...known, ...(provider.options ? Object.keys(provider) : [])]);
  for (const key of Object.keys(given)) {
    if (own.has(key) || key === "options") continue;
    logger.warn(
      "unknown-option",
      `Provider "${String(provider.id)}": \`${key}\` is not an option of ${String(type)} providers and is ignored${didYouMean(key, known)}`,
    );
  }
}

/**
 * Refuses an OAuth or OpenID Connect provider that has no client id: its sign-in would reach the
 * provider with none and stop on the provider's error page.
 */
export function assertClientId(provider: { id: string; clientId?: unknown }): void {
  if (typeof provider.clientId === "string" && provider.clientId !== "") return;
  const variable = `AUTH_${provider.id.toUpperCase().replace(/-/g, "_")}_ID`;
  throw new InvalidProvider(
    `Provider "${provider.id}" has no \`clientId\`; set ${variable} in the environment, or the provider's \`clientId\` option (the client id the provider gave when the application was registered).`,
  );
}

/**
 * The name of the `index`-th secret in the message about it: the environment variable it came
 * from (`names`, when the secret was read from the environment), else `secret[index]` or `secret`.
 */
export function secretName(index: number, isArray: boolean, names: readonly string[] | undefined): string {
  const name = names?.[index];
  if (name) return name;
  return isArray ? `\`secret[${index}]\`` : "`secret`";
}

// PostgreSQL: 42P01 undefined_table, 42703 undefined_column. MySQL/MariaDB: 1146 no such table,
// 1054 unknown column. SQLite says so in words.
const SCHEMA_CODES = new Set(["42P01", "42703", "ER_NO_SUCH_TABLE", "ER_BAD_FIELD_ERROR"]);
const SCHEMA_ERRNOS = new Set([1146, 1054]);
const SCHEMA_WORDS =
  /no such table|no such column|has no column named|relation "[^"]*" does not exist|column "[^"]*"(?: of relation "[^"]*")? does not exist|Table '[^']*' doesn't exist|Unknown column/i;

/**
 * When `error` (or one of its causes) says the database lacks a table or column, the advice to
 * run the migrations; otherwise undefined.
 *
 * @example
 * ```ts
 * missingSchemaAdvice(pgError) // 'the database has no such table or column (relation "users" does not exist): ...'
 * ```
 */
export function missingSchemaAdvice(error: unknown): string | undefined {
  let current = error;
  for (let depth = 0; current && typeof current === "object" && depth < 5; depth++) {
    const code = fieldOf(current, "code");
    const errno = fieldOf(current, "errno");
    const message = fieldOf(current, "message");
    const text = typeof message === "string" ? message : "";
    if (
      (typeof code === "string" && SCHEMA_CODES.has(code)) ||
      (typeof errno === "number" && SCHEMA_ERRNOS.has(errno)) ||
      SCHEMA_WORDS.test(text)
    ) {
      return `the database lacks a table or column Latchkey uses (${text.slice(0, 200)}): create or update its tables with \`npx latchkey migrate <database-url>\` (@latchkey/cli), or \`migrate(db)\` of @latchkey/sql-adapter at start`;
    }
    current = fieldOf(current, "cause");
  }
  return undefined;
}
