import type { OAuthCheck, OAuthConfig } from "../../providers/oauth.js";
import {
  InvalidEndpoints,
  InvalidProvider,
  MissingAdapter,
  MissingAuthorize,
  UnsupportedStrategy,
} from "../base/errors.js";
import { fieldOf } from "../base/merge.js";
import { emailCodeOptions } from "../flows/email/code.js";
import { resolveWebAuthnProvider } from "../flows/webauthn/config.js";
import { isSecretOrControlField } from "../limits/rate-limits.js";
import { assertClientId } from "./advice.js";
import { positiveSeconds } from "./checks.js";
import type { AuthConfig, SessionOptions } from "./options.js";
import { applyProviderOptions } from "./provider-options.js";
import type { InternalProvider, OAuthProviderInternal } from "./types.js";

/** An endpoint given as a URL alone, as its handler object. */
interface UrlEndpoint {
  url: string;
  params?: undefined;
  request?: undefined;
}

function normalizeEndpoint<E extends { url?: string }>(
  providerId: string,
  name: "authorization" | "token" | "userinfo",
  value: string | E | undefined,
): E | UrlEndpoint | undefined {
  if (value === undefined) return undefined;
  const endpoint = typeof value === "string" ? { url: value } : value;
  if (endpoint.url !== undefined) {
    try {
      new URL(endpoint.url);
    } catch {
      throw new InvalidEndpoints(
        `Provider "${providerId}": \`${name}\` must be an absolute URL; received ${JSON.stringify(endpoint.url)}`,
      );
    }
  }
  return endpoint;
}

function resolveOAuth(p: OAuthConfig, basePath: string): OAuthProviderInternal {
  if (p.issuer !== undefined) {
    try {
      new URL(p.issuer);
    } catch {
      throw new InvalidEndpoints(
        `Provider "${p.id}": \`issuer\` must be an absolute URL; received ${JSON.stringify(p.issuer)}`,
      );
    }
  }
  const authorization = normalizeEndpoint(p.id, "authorization", p.authorization);
  const token = normalizeEndpoint(p.id, "token", p.token);
  const userinfo = normalizeEndpoint(p.id, "userinfo", p.userinfo);
  if (!p.issuer && (!authorization?.url || (!token?.url && !token?.request))) {
    throw new InvalidEndpoints(
      `Provider "${p.id}" needs an \`issuer\` (for discovery) or both \`authorization\` and \`token\` endpoints.`,
    );
  }
  if (p.type === "oauth" && !p.issuer && !userinfo?.url && !userinfo?.request) {
    throw new InvalidEndpoints(
      `Provider "${p.id}" needs a \`userinfo\` endpoint (or an \`issuer\`) to read the user's profile.`,
    );
  }
  assertClientId(p);
  const authMethod = p.client?.token_endpoint_auth_method ?? "client_secret_basic";
  if (authMethod !== "none" && !p.clientSecret && !token?.request) {
    // Found now, not at the callback: there the user would already have consented at the provider.
    throw new InvalidProvider(
      `Provider "${p.id}" has no \`clientSecret\` (AUTH_${p.id.toUpperCase().replace(/-/g, "_")}_SECRET); set it, or \`client: { token_endpoint_auth_method: "none" }\` for a public client.`,
    );
  }
  const checks: Array<OAuthCheck | "nonce"> = p.checks
    ? [...p.checks]
    : p.type === "oidc"
      ? ["pkce", "nonce"]
      : ["pkce"];
  const redirectProxyUrl = p.redirectProxyUrl;
  if (redirectProxyUrl && !checks.includes("state")) checks.push("state");
  return {
    ...p,
    authorization: authorization
      ? {
          url: authorization.url ? new URL(authorization.url) : undefined,
          params: authorization.params ?? {},
        }
      : undefined,
    token,
    userinfo,
    checks,
    signinUrl: "",
    callbackUrl: "",
    signinPath: `${basePath}/signin/${p.id}`,
    callbackPath: `${basePath}/callback/${p.id}`,
  };
}

export function resolveProviders(
  config: AuthConfig,
  basePath: string,
  strategy: SessionOptions["strategy"],
): InternalProvider[] {
  const seen = new Set<string>();
  return (config.providers ?? []).map((entry, index) => {
    const provider = applyProviderOptions(entry);
    if (!provider || typeof provider.id !== "string" || !/^[A-Za-z0-9_-]+$/.test(provider.id)) {
      throw new InvalidProvider(`\`providers[${index}]\` needs an \`id\` made of letters, digits, "-" or "_".`);
    }
    if (seen.has(provider.id))
      throw new InvalidProvider(`Two providers have the id "${provider.id}"; give one of them another \`id\`.`);
    seen.add(provider.id);
    const paths = {
      signinPath: `${basePath}/signin/${provider.id}`,
      callbackPath: `${basePath}/callback/${provider.id}`,
    };
    switch (provider.type) {
      case "credentials":
        if (typeof provider.authorize !== "function") {
          throw new MissingAuthorize(`Credentials provider "${provider.id}" needs an \`authorize\` function.`);
        }
        if (provider.databaseSessions !== undefined && typeof provider.databaseSessions !== "boolean") {
          throw new InvalidProvider(
            `Credentials provider "${provider.id}": \`databaseSessions\` must be true or false.`,
          );
        }
        // Auth.js's answer stays the default; database sessions for credentials are an opt-in.
        if (strategy === "database" && provider.databaseSessions !== true) {
          throw new UnsupportedStrategy(
            `Credentials provider "${provider.id}" only works with JWT sessions unless it opts in: set \`databaseSessions: true\` on the provider (its users and "credentials" accounts are then stored through the adapter), or \`session: { strategy: "jwt" }\` (an adapter makes "database" the default).`,
          );
        }
        if (
          provider.identifier !== undefined &&
          typeof provider.identifier !== "function" &&
          (typeof provider.identifier !== "string" || provider.identifier === "")
        ) {
          throw new InvalidProvider(
            `Credentials provider "${provider.id}": \`identifier\` must be the name of a credentials field or a function of the credentials.`,
          );
        }
        if (typeof provider.identifier === "string" && isSecretOrControlField(provider, provider.identifier)) {
          const type = String(fieldOf(provider.credentials?.[provider.identifier], "type"));
          // Counting attempts on a value each guess changes would give every guess a fresh counter.
          throw new InvalidProvider(
            `Credentials provider "${provider.id}": \`identifier\` names the field "${provider.identifier}" of type "${type}", whose value changes with each guess, so attempts could not be limited. Name the field that says whose account it is (a user name, an e-mail address), or leave \`identifier\` out to count a provider without one (a PIN alone) as a whole.`,
          );
        }
        return {
          ...provider,
          credentials: provider.credentials ?? {},
          ...paths,
        };
      case "email":
        if (!config.adapter) {
          throw new MissingAdapter(
            `E-mail provider "${provider.id}" needs an \`adapter\` to store its verification tokens.`,
          );
        }
        if (typeof provider.sendVerificationRequest !== "function") {
          throw new InvalidProvider(`E-mail provider "${provider.id}" needs a \`sendVerificationRequest\` function.`);
        }
        emailCodeOptions(provider);
        return { ...provider, maxAge: provider.maxAge ?? 10 * 60, ...paths };
      case "oauth":
      case "oidc":
        return resolveOAuth(
          { ...provider, redirectProxyUrl: provider.redirectProxyUrl ?? config.redirectProxyUrl },
          basePath,
        );
      case "webauthn":
        return resolveWebAuthnProvider(provider, paths, config);
      case "totp": {
        // One second factor at most: the pending cookie and the code page name one provider.
        if (index !== (config.providers ?? []).findIndex((p) => applyProviderOptions(p).type === "totp")) {
          throw new InvalidProvider("Only one TOTP provider may be configured.");
        }
        if (!config.adapter) {
          throw new MissingAdapter(
            `TOTP provider "${provider.id}" needs an \`adapter\` with the second-factor methods (getSecondFactor, setSecondFactor, deleteSecondFactor, useSecondFactorStep, useBackupCode).`,
          );
        }
        const pendingMaxAge = positiveSeconds(`providers.${provider.id}.pendingMaxAge`, provider.pendingMaxAge, 300);
        return { ...provider, pendingMaxAge, issuer: String(provider.issuer || "Latchkey"), ...paths };
      }
      default: {
        const entry: unknown = provider;
        const type = fieldOf(entry, "type");
        throw new InvalidProvider(
          `Provider "${String(fieldOf(entry, "id"))}" has the unknown type ${JSON.stringify(type)}; use "oauth", "oidc", "email", "credentials", "webauthn" or "totp".`,
        );
      }
    }
  });
}
