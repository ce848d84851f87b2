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

// biome-ignore lint/suspicious/noExplicitAny: the fields of a credentials provider vary per provider
type AnyCredentialsConfig = CredentialsConfig<any>;

/** Any provider configuration; `P` is the profile of an OAuth / OIDC one. */
// `any` profile: a provider typed with its own profile (GitHubProfile, ...) must fit the list.
// biome-ignore lint/suspicious/noExplicitAny: profile types vary per provider
export type ProviderConfig<P = any> = OAuthConfig<P> | AnyCredentialsConfig | EmailConfig | WebAuthnConfig | TOTPConfig;

/**
 * A provider in `providers`: a configuration, or a factory called with no options
 * (`providers: [GitHub]` is the same as `providers: [GitHub({})]`). `P`, the profile an OAuth /
 * OIDC provider gives, is any profile unless named, as in Auth.js.
 *
 * @example
 * ```ts
 * const providers: Provider[] = [GitHub, Credentials({ authorize })]
 * ```
 */
// biome-ignore lint/suspicious/noExplicitAny: profile types vary per provider
export type Provider<P = any> = ProviderConfig<P> | ((options?: never) => ProviderConfig<P>);

/**
 * A provider's id, as `signIn(id)` takes it: a built-in id (`"github"`, `"credentials"`, ...) or
 * the `id` an application gave its own.
 */
export type ProviderId = string;

export type { Awaitable, User };
