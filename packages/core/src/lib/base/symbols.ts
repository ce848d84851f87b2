/**
 * Marker values of the configuration. Symbols registered globally, so that two copies of the
 * package (a bundled one and a linked one) still recognise each other's markers.
 */

/** Put in `config.skipCSRFCheck` to turn the CSRF check off (for frameworks that do their own). */
export const skipCSRFCheck: unique symbol = Symbol.for("latchkey.skipCSRFCheck");

/** Put in `config.raw` to make `Auth` return the `ResponseInternal` instead of a `Response`. */
export const raw: unique symbol = Symbol.for("latchkey.raw");

/**
 * Key of a provider option that replaces `fetch` for every request Latchkey makes to that
 * provider (discovery, token, userinfo). Use it for proxies, test doubles or request logging.
 *
 * @example
 * ```ts
 * GitHub({ [customFetch]: (input, init) => fetch(input, { ...init, dispatcher }) })
 * ```
 */
export const customFetch: unique symbol = Symbol.for("latchkey.customFetch");

/**
 * Key of the SMTP sender an SMTP provider (`Nodemailer`, `Email`) carries: what password-account
 * e-mails are sent with when no `send` is given. Only those providers' modules import nodemailer,
 * so a bundle without them (an Edge runtime, a Worker) holds none of it.
 */
export const smtpSender: unique symbol = Symbol.for("latchkey.smtpSender");

/**
 * Key of the loader of `@simplewebauthn/server` a WebAuthn provider (`WebAuthn`, `Passkey`)
 * carries: only those providers' modules import the package, so a bundle without them (an Edge
 * runtime, a Worker) holds none of it, even where it is installed.
 */
export const simpleWebAuthnLoader: unique symbol = Symbol.for("latchkey.simpleWebAuthnLoader");

/**
 * Marks the `getRelayingParty` every `WebAuthn()` and `Passkey()` carries unless given one: the
 * flow tells it from an application's own by this mark, without importing the providers' module
 * (which imports `@simplewebauthn/server`).
 */
export const defaultRelyingPartyMark: unique symbol = Symbol.for("latchkey.defaultGetRelayingParty");
