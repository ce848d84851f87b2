/**
 * A small hostile OpenID Provider on 127.0.0.1 for the id_token tests: discovery, a JSON Web Key
 * Set with one RS256 key, an authorization endpoint that signs everyone in at once (as `subject`),
 * and a token endpoint whose answers (code redemptions and refreshes) carry an id_token shaped by
 * `mode` (honest, or broken in one way a conformance suite for relying parties tries). It signs
 * with node:crypto, so every token is a real JWS; only what `mode` names is wrong.
 */
import { createSign, generateKeyPairSync, type KeyObject, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** What the id_token of the next refresh answers looks like. */
export type HostileMode =
  | "honest"
  | "no-id-token"
  | "corrupted-signature"
  | "foreign-key"
  | "alg-none"
  | "wrong-sub"
  | "wrong-aud"
  | "wrong-iss"
  | "missing-exp"
  | "expired"
  | "future-iat"
  | "slightly-future-iat";

export interface HostileOP {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Set the shape of the id_tokens the next refresh answers carry. */
  mode: HostileMode;
  /** Refresh requests received (their form bodies). */
  refreshes: URLSearchParams[];
  /** An id_token for `claims` over the defaults (iss, aud, iat, exp), signed with the published key. */
  idToken(claims: Record<string, unknown>): string;
  close(): Promise<void>;
}

const b64u = (value: Buffer | string) => Buffer.from(value).toString("base64url");

function sign(key: KeyObject, kid: string, claims: Record<string, unknown>, alg = "RS256"): string {
  const header = b64u(JSON.stringify({ alg, kid, typ: "JWT" }));
  const payload = b64u(JSON.stringify(claims));
  if (alg === "none") return `${header}.${payload}.`;
  const signature = createSign("RSA-SHA256").update(`${header}.${payload}`).sign(key);
  return `${header}.${payload}.${b64u(signature)}`;
}

/**
 * Starts the provider; `subject` is the user every honest id_token names.
 *
 * @example
 * ```ts
 * const op = await startHostileOP("alice")
 * op.mode = "wrong-sub"
 * ```
 */
export async function startHostileOP(subject: string): Promise<HostileOP> {
  const kid = "hostile-key-1";
  const published = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const foreign = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = { ...published.publicKey.export({ format: "jwk" }), kid, alg: "RS256", use: "sig" };
  const clientId = "latchkey-hostile";
  let issuer = "";
  const op: HostileOP = {
    issuer: "",
    clientId,
    clientSecret: "hostile-secret",
    mode: "honest",
    refreshes: [],
    idToken: (claims) => sign(published.privateKey, kid, { ...defaults(), ...claims }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const now = () => Math.floor(Date.now() / 1000);
  const defaults = () => ({ iss: issuer, aud: clientId, sub: subject, iat: now(), exp: now() + 600 });

  /** The nonce each issued code was asked with (none when the client sent none). */
  const codes = new Map<string, string | null>();

  function idTokenOfMode(nonce?: string | null): string | undefined {
    const claims: Record<string, unknown> = { ...defaults(), ...(nonce ? { nonce } : {}) };
    switch (op.mode) {
      case "no-id-token":
        return undefined;
      case "honest":
        return sign(published.privateKey, kid, claims);
      case "corrupted-signature": {
        const token = sign(published.privateKey, kid, claims);
        const signature = Buffer.from(token.split(".")[2] as string, "base64url");
        signature[10] = (signature[10] as number) ^ 0xff;
        return `${token.split(".").slice(0, 2).join(".")}.${b64u(signature)}`;
      }
      case "foreign-key":
        return sign(foreign.privateKey, kid, claims);
      case "alg-none":
        return sign(published.privateKey, kid, claims, "none");
      case "wrong-sub":
        return sign(published.privateKey, kid, { ...claims, sub: "mallory" });
      case "wrong-aud":
        return sign(published.privateKey, kid, { ...claims, aud: "another-client" });
      case "wrong-iss":
        return sign(published.privateKey, kid, { ...claims, iss: "https://evil.example" });
      case "missing-exp": {
        const { exp: _exp, ...rest } = claims;
        return sign(published.privateKey, kid, rest);
      }
      case "expired":
        return sign(published.privateKey, kid, { ...claims, iat: now() - 7200, exp: now() - 3600 });
      case "future-iat":
        return sign(published.privateKey, kid, { ...claims, iat: now() + 3600, exp: now() + 7200 });
      case "slightly-future-iat":
        return sign(published.privateKey, kid, { ...claims, iat: now() + 60 });
    }
  }

  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += String(chunk);
    });
    req.on("end", () => {
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
        res.end(JSON.stringify(value));
      };
      const path = new URL(req.url ?? "/", issuer).pathname;
      if (path === "/.well-known/openid-configuration") {
        return json(200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          response_types_supported: ["code"],
          subject_types_supported: ["public"],
          id_token_signing_alg_values_supported: ["RS256"],
        });
      }
      if (path === "/jwks") return json(200, { keys: [jwk] });
      if (path === "/authorize") {
        const query = new URL(req.url ?? "/", issuer).searchParams;
        const code = randomBytes(12).toString("hex");
        codes.set(code, query.get("nonce"));
        const back = new URL(query.get("redirect_uri") ?? "");
        back.searchParams.set("code", code);
        if (query.get("state")) back.searchParams.set("state", query.get("state") as string);
        res.writeHead(302, { location: back.href });
        return res.end();
      }
      if (path === "/token" && req.method === "POST") {
        const form = new URLSearchParams(body);
        const grant = form.get("grant_type");
        const code = form.get("code") ?? "";
        if (grant === "authorization_code" && !codes.has(code)) return json(400, { error: "invalid_grant" });
        if (grant !== "refresh_token" && grant !== "authorization_code")
          return json(400, { error: "unsupported_grant_type" });
        if (grant === "refresh_token") op.refreshes.push(form);
        const idToken = idTokenOfMode(grant === "authorization_code" ? codes.get(code) : undefined);
        codes.delete(code);
        return json(200, {
          access_token: `at-${randomBytes(8).toString("hex")}`,
          token_type: "Bearer",
          expires_in: 3600,
          refresh_token: `rt-${randomBytes(8).toString("hex")}`,
          ...(idToken === undefined ? {} : { id_token: idToken }),
        });
      }
      json(404, { error: "not_found" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  op.issuer = issuer;
  return op;
}
