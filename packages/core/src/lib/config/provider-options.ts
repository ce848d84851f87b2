import type { Provider, ProviderConfig } from "../../providers/index.js";
import { merge } from "../base/merge.js";

/**
 * Turns an entry of `config.providers` into its final configuration: a factory is called with no
 * options, and the caller's `options` are merged over the provider's defaults (the caller wins;
 * `undefined` never erases a default). This one function serves every provider.
 *
 * @example
 * ```ts
 * applyProviderOptions(GitHub({ clientId: "id", authorization: { params: { scope: "read:user" } } }))
 * ```
 */
export function applyProviderOptions(provider: Provider): ProviderConfig {
  const config = typeof provider === "function" ? provider() : provider;
  const { options, ...defaults } = config as ProviderConfig & { options?: object };
  return merge(defaults as ProviderConfig, options);
}
