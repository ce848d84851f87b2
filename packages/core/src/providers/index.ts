/**
 * Provider types. Each built-in provider lives in its own module, `@latchkey/core/providers/<id>`.
 *
 * @module providers
 */
import type { Awaitable, ProviderType, User } from "../shapes/data.js";
import type { CredentialsConfig } from "./credentials.js";
import type { EmailConfig } from "./email.js";
import type { OAuthConfig } from "./oauth.js";
import type { TOTPConfig } from "./totp.js";
import type { WebAuthnConfig } from "./webauthn.js";

export type { CredentialInput, CredentialsConfig } from "./credentials.js";
export type { EmailConfig } from "./email.js";
export type * from "./oauth.js";
export type { TOTPConfig, TOTPUserConfig } from "./totp.js";
export type { WebAuthnConfig } from "./webauthn.js";

/** What every provider has. */
export interface CommonProviderOptions {
  id: string;
  name: string;
  type: ProviderType;
}

/** Any provider configuration. */
// `any` profile: a provider typed with its own profile (GitHubProfile, ...) must fit the list.
// biome-ignore lint/suspicious/noExplicitAny: profile types vary per provider
export type ProviderConfig = OAuthConfig<any> | CredentialsConfig<any> | EmailConfig | WebAuthnConfig | TOTPConfig;

/**
 * A provider in `providers`: a configuration, or a factory called with no options
 * (`providers: [GitHub]` is the same as `providers: [GitHub({})]`).
 */
export type Provider = ProviderConfig | ((options?: never) => ProviderConfig);

export type { Awaitable, User };
