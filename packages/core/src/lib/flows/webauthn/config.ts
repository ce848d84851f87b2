/**
 * The checks of a WebAuthn provider made when a configuration is resolved. Kept apart from the
 * WebAuthn flow, so that resolving a configuration does not load the flow (and its optional
 * peer, @simplewebauthn/server) for applications that never serve a passkey request.
 */

import type { RelyingPartyOptions, WebAuthnConfig } from "../../../providers/webauthn.js";
import type { Adapter } from "../../../shapes/adapters.js";
import {
  DuplicateConditionalUI,
  ExperimentalFeatureNotEnabled,
  InvalidConfiguration,
  InvalidProvider,
  MissingAdapter,
  MissingWebAuthnAutocomplete,
} from "../../base/errors.js";
import type { WebAuthnProviderInternal } from "../../config/types.js";

/** The path segment the browser script is served at: `<basePath>/webauthn-script.js`. */
export const WEBAUTHN_SCRIPT = "webauthn-script.js";

export type { WebAuthnProviderInternal };

/** The adapter methods a WebAuthn provider needs (checked when the configuration is resolved). */
export const webauthnAdapterMethods = [
  "getAuthenticator",
  "createAuthenticator",
  "listAuthenticatorsByUserId",
  "updateAuthenticatorCounter",
  "getAccount",
  "getUser",
  "getUserByAccount",
  "getUserByEmail",
  "createUser",
  "linkAccount",
  "createVerificationToken",
  "useVerificationToken",
] as const;

function list(name: string, providerId: string, value: unknown): string[] {
  if (value === undefined) return [];
  const values: unknown[] = Array.isArray(value) ? value : [value];
  const strings = values.filter((v): v is string => typeof v === "string" && v !== "");
  if (values.length === 0 || strings.length !== values.length) {
    throw new InvalidConfiguration(
      `Provider "${providerId}": \`relyingParty.${name}\` must be a non-empty string or a list of them; received ${JSON.stringify(value)}`,
    );
  }
  return strings;
}

/**
 * Validates a WebAuthn provider when the configuration is resolved: the experimental flag must be
 * on, an adapter configured, the relying-party values strings, and a provider with conditional UI
 * needs a form field whose `autocomplete` contains `webauthn`.
 *
 * @example
 * ```ts
 * resolveWebAuthnProvider(Passkey(), { signinPath: "/auth/signin/passkey", callbackPath: "/auth/callback/passkey" }, config)
 * ```
 */
export function resolveWebAuthnProvider(
  provider: WebAuthnConfig,
  paths: { signinPath: string; callbackPath: string },
  config: { adapter?: Adapter; experimental?: { enableWebAuthn?: boolean } },
): WebAuthnProviderInternal {
  const { id } = provider;
  if (!config.experimental?.enableWebAuthn) {
    throw new ExperimentalFeatureNotEnabled(
      `Provider "${id}" is a WebAuthn provider; turn it on with \`experimental: { enableWebAuthn: true }\`.`,
    );
  }
  if (!config.adapter) {
    throw new MissingAdapter(
      `WebAuthn provider "${id}" needs an \`adapter\` that stores users, accounts and authenticators.`,
    );
  }
  if (typeof provider.getUserInfo !== "function") {
    throw new InvalidProvider(`WebAuthn provider "${id}" needs a \`getUserInfo\` function.`);
  }
  const formFields = provider.formFields ?? {};
  const enableConditionalUI = provider.enableConditionalUI !== false;
  if (enableConditionalUI) {
    const hasAutofill = Object.values(formFields).some(
      (f) => typeof f?.autocomplete === "string" && f.autocomplete.split(/\s+/).includes("webauthn"),
    );
    if (!hasAutofill) {
      throw new MissingWebAuthnAutocomplete(
        `WebAuthn provider "${id}" uses conditional UI, so one of its \`formFields\` needs \`autocomplete: "username webauthn"\` (or set \`enableConditionalUI: false\`).`,
      );
    }
  }
  const { relayingParty, options: _options, ...rest } = provider;
  const rp: RelyingPartyOptions = { ...relayingParty, ...provider.relyingParty };
  return {
    ...rest,
    enableConditionalUI,
    formFields,
    relyingParty: { id: list("id", id, rp.id), name: list("name", id, rp.name), origin: list("origin", id, rp.origin) },
    configuredRelyingParty: rp,
    ...paths,
  };
}

/** At most one provider may offer conditional UI: the browser's autofill serves one request. */
export function assertConditionalUI(
  providers: ReadonlyArray<{ id: string; type: string; enableConditionalUI?: boolean }>,
): void {
  const withAutofill = providers.filter((p) => p.type === "webauthn" && p.enableConditionalUI);
  if (withAutofill.length > 1) {
    throw new DuplicateConditionalUI(
      `Only one WebAuthn provider may enable conditional UI; set \`enableConditionalUI: false\` on all but one of ${withAutofill.map((p) => `"${p.id}"`).join(", ")}.`,
    );
  }
}
