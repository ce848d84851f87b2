/**
 * The MCP TypeScript SDK's `OAuthClientProvider`, kept in memory, for tests that drive the SDK's
 * own OAuth flow: where the SDK would open a browser, it records the authorization URL, which
 * the test then walks through Latchkey's pages.
 */
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";

export class MemoryOAuthProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  /** Where the SDK sent the user last (set by `redirectToAuthorization`). */
  authorizationUrl: URL | undefined;
  readonly clientMetadata: OAuthClientMetadata;

  /**
   * A public client returning to `redirectUrl`; `clientMetadataUrl` makes it a metadata-document
   * client; `grantTypes` without `refresh_token` registers one that gets no refresh token.
   */
  constructor(
    readonly redirectUrl: string,
    readonly clientMetadataUrl?: string,
    grantTypes = ["authorization_code", "refresh_token"],
  ) {
    this.clientMetadata = {
      client_name: "SDK test client",
      redirect_uris: [redirectUrl],
      grant_types: grantTypes,
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery") {
    if (scope === "all" || scope === "tokens") this.saved = undefined;
    if (scope === "all" || scope === "client") this.information = undefined;
  }
}
