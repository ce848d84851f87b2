"use client";
/**
 * Passkey sign-in from the browser, as `next-auth/webauthn` has it: `signIn("passkey")` asks
 * `<basePath>/webauthn-options/<id>` what to do, runs the ceremony it names (register or
 * authenticate) with `navigator.credentials`, and posts the credential to the provider's
 * callback. No dependency: the credential is serialized as `@simplewebauthn/browser` sends it.
 *
 * @example
 * ```tsx
 * "use client"
 * import { signIn } from "@latchkey/next/webauthn"
 * <button onClick={() => signIn("passkey", { email })}>Sign in with a passkey</button>
 * <button onClick={() => signIn("passkey", { action: "register" })}>Add a passkey</button>
 * ```
 * @module @latchkey/next/webauthn
 */
import {
  actionUrl,
  getCsrfToken,
  getProviders,
  go,
  refreshSession,
  type SignInAuthorizationParams,
  type SignInOptions,
  type SignInResponse,
} from "./client.js";

export { getCsrfToken, getProviders } from "./client.js";

function fromB64url(text: string): ArrayBuffer {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/") + "==".slice(0, (4 - (text.length % 4)) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out.buffer;
}

function toB64url(buffer: ArrayBuffer | ArrayBufferView): string {
  const bytes =
    buffer instanceof ArrayBuffer
      ? new Uint8Array(buffer)
      : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let bin = "";
  for (const byte of bytes) bin += String.fromCharCode(byte);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

type Descriptor = { id: string; type: string; transports?: string[] };
type Json = Record<string, unknown>;

function descriptors(list: unknown): PublicKeyCredentialDescriptor[] {
  return ((list as Descriptor[] | undefined) ?? []).map(
    (c) => ({ ...c, id: fromB64url(c.id) }) as unknown as PublicKeyCredentialDescriptor,
  );
}

/** The credential as JSON, base64url for every binary field. */
function credentialJSON(credential: PublicKeyCredential): Json {
  const r = credential.response as AuthenticatorAttestationResponse & AuthenticatorAssertionResponse;
  const response: Json = { clientDataJSON: toB64url(r.clientDataJSON) };
  if ("attestationObject" in r && r.attestationObject) {
    response.attestationObject = toB64url(r.attestationObject);
    response.transports = typeof r.getTransports === "function" ? r.getTransports() : [];
    if (typeof r.getPublicKeyAlgorithm === "function") response.publicKeyAlgorithm = r.getPublicKeyAlgorithm();
    const key = typeof r.getPublicKey === "function" ? r.getPublicKey() : null;
    if (key) response.publicKey = toB64url(key);
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
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
  };
}

/** Runs the ceremony the options name; the credential's JSON and which ceremony it was. */
async function ceremony(provider: string, params: Record<string, string>) {
  const res = await fetch(
    `${actionUrl(`webauthn-options/${encodeURIComponent(provider)}`)}?${new URLSearchParams(params)}`,
  );
  if (!res.ok) throw new Error(`The passkey options could not be read (${res.status}): ${await res.text()}`);
  const answer = (await res.json()) as { action: "register" | "authenticate"; options: Json };
  const o = answer.options;
  if (answer.action === "register") {
    const user = o.user as Json;
    const credential = (await navigator.credentials.create({
      publicKey: {
        ...(o as unknown as PublicKeyCredentialCreationOptions),
        challenge: fromB64url(o.challenge as string),
        user: { ...(user as unknown as PublicKeyCredentialUserEntity), id: fromB64url(user.id as string) },
        excludeCredentials: descriptors(o.excludeCredentials),
      },
    })) as PublicKeyCredential | null;
    if (!credential) throw new Error("No passkey was created.");
    return { action: "register", data: credentialJSON(credential) };
  }
  const credential = (await navigator.credentials.get({
    publicKey: {
      ...(o as unknown as PublicKeyCredentialRequestOptions),
      challenge: fromB64url(o.challenge as string),
      allowCredentials: descriptors(o.allowCredentials),
    },
  })) as PublicKeyCredential | null;
  if (!credential) throw new Error("No passkey was chosen.");
  return { action: "authenticate", data: credentialJSON(credential) };
}

/**
 * Signs in (or registers a passkey) with a WebAuthn provider. The options' other fields (`email`,
 * `action: "register"`) go to the options request; `redirect: false` answers a `SignInResponse`.
 *
 * @example
 * ```ts
 * const result = await signIn("passkey", { redirect: false })
 * ```
 */
export async function signIn(
  provider: string,
  options?: SignInOptions<true>,
  authorizationParams?: SignInAuthorizationParams,
): Promise<undefined>;
export async function signIn(
  provider: string,
  options?: SignInOptions<false>,
  authorizationParams?: SignInAuthorizationParams,
): Promise<SignInResponse>;
export async function signIn(
  provider: string,
  options: SignInOptions<boolean> = {},
  authorizationParams?: SignInAuthorizationParams,
): Promise<SignInResponse | undefined> {
  const { callbackUrl, redirect = true, redirectTo = callbackUrl ?? window.location.href, ...fields } = options;
  const providers = await getProviders();
  if (providers?.[provider]?.type !== "webauthn")
    throw new TypeError(
      `The provider "${provider}" is not a WebAuthn provider: import { signIn } from "@latchkey/next/react" for it.`,
    );
  const params: Record<string, string> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) params[key] = String(value);
  const { action, data } = await ceremony(provider, params);
  const query = new URLSearchParams(authorizationParams).toString();
  const res = await fetch(`${actionUrl(`callback/${encodeURIComponent(provider)}`)}${query ? `?${query}` : ""}`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Auth-Return-Redirect": "1" },
    body: new URLSearchParams({
      ...params,
      action,
      data: JSON.stringify(data),
      csrfToken: await getCsrfToken(),
      callbackUrl: String(redirectTo),
    }),
  });
  const answer = (await res.json().catch(() => ({}))) as { url?: unknown };
  const url = typeof answer.url === "string" ? answer.url : String(redirectTo);
  // Only a page of this application is gone to (`go`): never `javascript:` or another site.
  if (redirect) return go(url);
  let said = new URLSearchParams();
  try {
    said = new URL(url, window.location.href).searchParams;
  } catch {
    // not a URL: no error or code to read from it
  }
  const error = said.get("error") ?? undefined;
  if (res.ok && !error) await refreshSession({ broadcast: true });
  const code = said.get("code") ?? undefined;
  return { error, code, status: res.status, ok: res.ok && !error, url: error ? null : url };
}
