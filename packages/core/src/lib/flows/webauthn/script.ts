/**
 * The browser code of the built-in sign-in page's WebAuthn forms, served by Latchkey itself at
 * `<basePath>/webauthn-script.js` (the page's CSP allows scripts from its own origin only).
 *
 * Each form marked `data-webauthn-options="<url>"` asks that URL for options (with the form's
 * visible fields as query parameters), runs the ceremony the answer names (`register` or
 * `authenticate`), and posts the credential JSON to the form's action (the provider's callback)
 * as `action` and `data`. The form marked `data-webauthn-conditional` also starts a conditional
 * (autofill) request when the page loads; pressing the button aborts it first.
 *
 * Written for the page (no dependency, no build step): the base64url conversions and the
 * `PublicKeyCredential` serialization match what `@simplewebauthn/browser` sends.
 */
export const webauthnScript = `(() => {
  "use strict";
  const fromB64url = (text) => {
    const b64 = text.replace(/-/g, "+").replace(/_/g, "/") + "==".slice(0, (4 - (text.length % 4)) % 4);
    const bin = atob(b64);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out.buffer;
  };
  const toB64url = (buffer) => {
    let bin = "";
    for (const byte of new Uint8Array(buffer)) bin += String.fromCharCode(byte);
    return btoa(bin).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
  };
  const descriptors = (list) => (list || []).map((c) => ({ ...c, id: fromB64url(c.id) }));
  const creationOptions = (o) => ({
    ...o,
    challenge: fromB64url(o.challenge),
    user: { ...o.user, id: fromB64url(o.user.id) },
    excludeCredentials: descriptors(o.excludeCredentials),
  });
  const requestOptions = (o) => ({ ...o, challenge: fromB64url(o.challenge), allowCredentials: descriptors(o.allowCredentials) });
  const credentialJSON = (credential) => {
    const r = credential.response;
    const response = { clientDataJSON: toB64url(r.clientDataJSON) };
    if (r.attestationObject) {
      response.attestationObject = toB64url(r.attestationObject);
      response.transports = typeof r.getTransports === "function" ? r.getTransports() : [];
      if (typeof r.getPublicKeyAlgorithm === "function") response.publicKeyAlgorithm = r.getPublicKeyAlgorithm();
      if (typeof r.getPublicKey === "function" && r.getPublicKey()) response.publicKey = toB64url(r.getPublicKey());
      if (typeof r.getAuthenticatorData === "function") response.authenticatorData = toB64url(r.getAuthenticatorData());
    } else {
      response.authenticatorData = toB64url(r.authenticatorData);
      response.signature = toB64url(r.signature);
      if (r.userHandle) response.userHandle = toB64url(r.userHandle);
    }
    return {
      id: credential.id,
      rawId: toB64url(credential.rawId),
      type: credential.type,
      response,
      clientExtensionResults: credential.getClientExtensionResults(),
      authenticatorAttachment: credential.authenticatorAttachment || undefined,
    };
  };
  const fetchOptions = async (form, action, withFields) => {
    const url = new URL(form.dataset.webauthnOptions, location.href);
    if (action) url.searchParams.set("action", action);
    if (withFields) {
      for (const el of form.elements) {
        if (el.name && el.value && el.type !== "hidden" && el.type !== "submit") url.searchParams.set(el.name, el.value);
      }
    }
    const res = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
    if (!res.ok) throw new Error("options " + res.status);
    return res.json();
  };
  const complete = (form, action, credential) => {
    if (!credential) throw new Error("no credential");
    form.elements.namedItem("action").value = action;
    form.elements.namedItem("data").value = JSON.stringify(credentialJSON(credential));
    form.submit();
  };
  const showError = (form, error) => {
    const box = form.querySelector("[data-webauthn-error]");
    if (!box) return;
    // A browser says NotAllowedError alike for "cancelled", "timed out" and "no passkey here".
    box.textContent =
      error && error.name === "NotAllowedError" && form.dataset.webauthnCeremony === "authenticate"
        ? "No passkey was used. If this device has no passkey for this address, use the phone or security key that holds it (your browser can show a QR code for a phone), or sign in another way. If you cancelled, try again."
        : error && error.name === "NotAllowedError"
        ? "The passkey request was cancelled or timed out. Try again."
        : error && error.name === "InvalidStateError"
          ? "This authenticator is already registered. Sign in with it instead."
          : "The passkey could not be used. Try again.";
    box.hidden = false;
  };
  let conditional = null;
  let conditionalReady = Promise.resolve();
  const run = async (form) => {
    // The conditional request's options (and challenge cookie) must land before ours replace them.
    await conditionalReady.catch(() => {});
    if (conditional) conditional.abort();
    const { action, options } = await fetchOptions(form, undefined, true);
    form.dataset.webauthnCeremony = action;
    const credential =
      action === "register"
        ? await navigator.credentials.create({ publicKey: creationOptions(options) })
        : await navigator.credentials.get({ publicKey: requestOptions(options) });
    complete(form, action, credential);
  };
  for (const form of document.querySelectorAll("form[data-webauthn-options]")) {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (!window.PublicKeyCredential) return showError(form, new Error("unsupported"));
      run(form).catch((error) => showError(form, error));
    });
  }
  const autofill = document.querySelector("form[data-webauthn-conditional]");
  if (autofill && window.PublicKeyCredential && typeof PublicKeyCredential.isConditionalMediationAvailable === "function") {
    conditionalReady = PublicKeyCredential.isConditionalMediationAvailable().then(async (available) => {
      if (!available) return;
      const controller = new AbortController();
      const { options } = await fetchOptions(autofill, "authenticate", false);
      conditional = controller;
      navigator.credentials
        .get({ publicKey: requestOptions(options), mediation: "conditional", signal: controller.signal })
        .then((credential) => complete(autofill, "authenticate", credential))
        .catch(() => {});
    });
  }
})();
`;
