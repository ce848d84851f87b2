/**
 * `@simplewebauthn/server`, an optional peer, loaded on first use. Latchkey speaks the API of its
 * version 13; applications moved from `next-auth` v5 have version 9 (what Auth.js's WebAuthn
 * provider needs), whose four functions take and give credential ids as bytes and name the
 * stored credential `authenticator`. Version 9 is translated here, at the edge, so the flow never
 * sees the difference; any other major version is refused when first used, naming the fix.
 */

import { fromBase64url, packageVersion, toBase64url } from "#platform";
import { errorOf } from "../../base/error-of.js";
import { InvalidConfiguration } from "../../base/errors.js";
import { simpleWebAuthnLoader } from "../../base/symbols.js";
import type { WebAuthnProviderInternal } from "./config.js";

/** A JSON object, as the library's options and answers are. */
export type Json = Record<string, unknown>;

/** A credential as a verified registration returns it. */
export interface VerifiedCredential {
  /** base64url */
  id: string;
  publicKey: Uint8Array;
  counter: number;
}

/** A stored credential, as an authentication is verified against it. */
export interface StoredCredential extends VerifiedCredential {
  transports?: string[];
}

/** The four functions Latchkey calls, with version 13's arguments and answers. */
export interface Lib {
  generateAuthenticationOptions(options: Json): Promise<Json & { challenge: string }>;
  generateRegistrationOptions(options: Json): Promise<Json & { challenge: string }>;
  verifyAuthenticationResponse(options: Json & { credential: StoredCredential }): Promise<{
    verified: boolean;
    authenticationInfo?: { newCounter: number };
  }>;
  verifyRegistrationResponse(options: Json): Promise<{
    verified: boolean;
    registrationInfo?: { credential: VerifiedCredential; credentialDeviceType: string; credentialBackedUp: boolean };
  }>;
}

/** The major versions Latchkey works with: 13 (its own API) and 9 (`next-auth` v5's). */
const SUPPORTED = [9, 13];

const bytesOf = fromBase64url;
const base64urlOf = toBase64url;

/** Version 9's four functions: bytes where 13 has base64url, `authenticator` for `credential`. */
interface LibV9 {
  generateAuthenticationOptions(options: Json): Promise<Json & { challenge: string }>;
  generateRegistrationOptions(options: Json): Promise<Json & { challenge: string }>;
  verifyAuthenticationResponse(
    options: Json,
  ): Promise<{ verified: boolean; authenticationInfo?: { newCounter: number } }>;
  verifyRegistrationResponse(options: Json): Promise<{
    verified: boolean;
    registrationInfo?: {
      credentialID: Uint8Array;
      credentialPublicKey: Uint8Array;
      counter: number;
      credentialDeviceType: string;
      credentialBackedUp: boolean;
    };
  }>;
}

type Descriptor = { id: string; transports?: string[] };
const v9Descriptors = (list: unknown) =>
  Array.isArray(list)
    ? list.map(({ id, transports }: Descriptor) => ({ id: bytesOf(id), type: "public-key", transports }))
    : undefined;

/**
 * Version 9's functions behind version 13's interface: descriptors and the stored credential
 * carry bytes, the user handle is a string (sent to the browser as given, so a base64url one),
 * and a registration answers `credentialID` / `credentialPublicKey` instead of `credential`.
 */
function fromVersion9(v9: LibV9): Lib {
  return {
    generateAuthenticationOptions: ({ allowCredentials, ...options }) =>
      v9.generateAuthenticationOptions({ ...options, allowCredentials: v9Descriptors(allowCredentials) }),
    generateRegistrationOptions: ({ excludeCredentials, userID, ...options }) =>
      v9.generateRegistrationOptions({
        ...options,
        userID: userID instanceof Uint8Array ? base64urlOf(userID) : userID,
        excludeCredentials: v9Descriptors(excludeCredentials),
      }),
    verifyAuthenticationResponse: ({ credential, ...options }) => {
      const { id, publicKey, counter, transports } = credential;
      return v9.verifyAuthenticationResponse({
        ...options,
        authenticator: { credentialID: bytesOf(id), credentialPublicKey: publicKey, counter, transports },
      });
    },
    async verifyRegistrationResponse(options) {
      const result = await v9.verifyRegistrationResponse(options);
      const info = result.registrationInfo;
      if (!info) return { verified: result.verified };
      const { credentialID, credentialPublicKey, counter, credentialDeviceType, credentialBackedUp } = info;
      return {
        verified: result.verified,
        registrationInfo: {
          credential: { id: base64urlOf(credentialID), publicKey: credentialPublicKey, counter },
          credentialDeviceType,
          credentialBackedUp,
        },
      };
    },
  };
}

/**
 * Version 9's module is told from 13's by its exports: both have `MetadataService`, only 13 (of
 * the two) exports `supportedCOSEAlgorithmIdentifiers`. An object of the four functions alone
 * (a `simpleWebAuthn` option written by hand) is taken as version 13, as before.
 */
function isVersion9(lib: object): lib is LibV9 {
  return "MetadataService" in lib && !("supportedCOSEAlgorithmIdentifiers" in lib);
}

/**
 * The functions of `@simplewebauthn/server` for `provider`: its `simpleWebAuthn` option, else the
 * installed package (version 13 as is, version 9 translated). A missing package or another major
 * version fails with `InvalidConfiguration` naming the command that fixes it.
 *
 * @example
 * ```ts
 * const lib = await loadSimpleWebAuthn(provider)
 * const options = await lib.generateAuthenticationOptions({ rpID: "example.com" })
 * ```
 */
export async function loadSimpleWebAuthn(provider: WebAuthnProviderInternal): Promise<Lib> {
  if (provider.simpleWebAuthn) {
    const given = provider.simpleWebAuthn as unknown as Lib;
    return isVersion9(given) ? fromVersion9(given) : given;
  }
  // The package is imported by the provider's module (providers/webauthn.ts), never from here: a
  // bundle without a WebAuthn provider holds none of it.
  const load = provider[simpleWebAuthnLoader];
  if (typeof load !== "function") {
    throw new InvalidConfiguration(
      `WebAuthn provider "${provider.id}" has no \`@simplewebauthn/server\` to use: make it with \`WebAuthn()\` or \`Passkey()\` (providers/webauthn, providers/passkey), or give it the package's functions as \`simpleWebAuthn\`.`,
    );
  }
  let lib: Lib;
  try {
    lib = (await load()) as Lib;
  } catch (e) {
    throw new InvalidConfiguration(
      `WebAuthn provider "${provider.id}" needs the optional peer dependency \`@simplewebauthn/server\` (version 13, or 9); install it with \`npm install @simplewebauthn/server\`.`,
      { err: errorOf(e) },
    );
  }
  // Read from its package.json where there is a file system (Node.js); in a bundle (Edge,
  // Workers) there is none, and the module's exports alone tell 9 from 13.
  const version = packageVersion("@simplewebauthn/server");
  const major = version ? Number.parseInt(version, 10) : undefined;
  if (major !== undefined && !SUPPORTED.includes(major)) {
    throw new InvalidConfiguration(
      `WebAuthn provider "${provider.id}": Latchkey works with \`@simplewebauthn/server\` 13 (or 9, as next-auth v5 applications have it); version ${version} is installed. Run \`npm install @simplewebauthn/server@^13\`.`,
    );
  }
  return isVersion9(lib) ? fromVersion9(lib) : lib;
}
