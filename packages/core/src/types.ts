/**
 * The public shapes of Latchkey (spec §2): the configuration (`AuthConfig` and its options) and,
 * re-exported, the data shapes of `shapes/`, the `Provider` union and the `JWT` claims. They
 * match Auth.js's, so code written against `@auth/core/types` compiles against these unchanged.
 *
 * @module types
 */
export type {
  AccessTokensOptions,
  AuthConfig,
  CallbacksOptions,
  EventCallbacks,
  SessionOf,
  SessionOptions,
} from "./lib/config/index.js";
export type { Provider } from "./providers/index.js";
export type {
  Account,
  AuthAction,
  Authenticator,
  AuthorizationDetails,
  Awaitable,
  Cookie,
  CookieOption,
  CookieSerializeOptions,
  CookiesOptions,
  DefaultSession,
  DefaultUser,
  LoggerInstance,
  PagesOptions,
  Profile,
  ProfileAddress,
  ProviderType,
  PublicProvider,
  ResponseInternal,
  Session,
  SessionEndReason,
  Theme,
  TokenSet,
  User,
} from "./shapes/data.js";
export type { DefaultJWT, JWT } from "./shapes/jwt.js";
