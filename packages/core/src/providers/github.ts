/**
 * Sign in with GitHub (OAuth 2), on github.com or a GitHub Enterprise Server.
 *
 * The user is read from the REST API's `/user`. When the user keeps the e-mail address private,
 * `/user/emails` (scope `user:email`) supplies the primary verified address instead.
 *
 * - Callback URL to register: `<origin>/auth/callback/github`
 * - Environment variables: `AUTH_GITHUB_ID`, `AUTH_GITHUB_SECRET`
 *
 * @example
 * ```ts
 * import GitHub from "@latchkey/core/providers/github"
 * GitHub({ clientId: process.env.AUTH_GITHUB_ID, clientSecret: process.env.AUTH_GITHUB_SECRET })
 * // GitHub Enterprise Server:
 * GitHub({ enterprise: { baseUrl: "https://github.example.com" } })
 * ```
 * @see https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps
 * @module providers/github
 */
import { customFetch } from "../lib/base/symbols.js";
import type { Profile } from "../shapes/data.js";
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The user of the GitHub REST API (`GET /user`). */
export interface GitHubProfile {
  login: string;
  id: number;
  node_id: string;
  avatar_url: string;
  gravatar_id: string | null;
  url: string;
  html_url: string;
  type: string;
  site_admin: boolean;
  name: string | null;
  company: string | null;
  blog: string | null;
  location: string | null;
  email: string | null;
  hireable: boolean | null;
  bio: string | null;
  twitter_username?: string | null;
  public_repos: number;
  public_gists: number;
  followers: number;
  following: number;
  created_at: string;
  updated_at: string;
  private_gists?: number;
  total_private_repos?: number;
  owned_private_repos?: number;
  disk_usage?: number;
  collaborators?: number;
  two_factor_authentication?: boolean;
  plan?: { collaborators: number; name: string; space: number; private_repos: number };
  [claim: string]: unknown;
}

/** An entry of `GET /user/emails`. */
export interface GitHubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
  visibility: "public" | "private" | null;
}

export interface GitHubOptions extends OAuthUserConfig<GitHubProfile> {
  /** A GitHub Enterprise Server. Its API is expected at `<baseUrl>/api/v3`. */
  enterprise?: { baseUrl?: string };
}

export default function GitHub(options: GitHubOptions = {}): OAuthConfig<GitHubProfile> {
  const baseUrl = (options.enterprise?.baseUrl ?? "https://github.com").replace(/\/+$/, "");
  const apiUrl = options.enterprise?.baseUrl ? `${baseUrl}/api/v3` : "https://api.github.com";
  return {
    id: "github",
    name: "GitHub",
    type: "oauth",
    authorization: { url: `${baseUrl}/login/oauth/authorize`, params: { scope: "read:user user:email" } },
    token: `${baseUrl}/login/oauth/access_token`,
    userinfo: {
      url: `${apiUrl}/user`,
      async request({ tokens, provider }) {
        const fetchFn = provider[customFetch] ?? fetch;
        const headers = {
          Accept: "application/vnd.github+json",
          Authorization: `Bearer ${tokens.access_token}`,
          "User-Agent": "latchkey",
        };
        const response = await fetchFn(provider.userinfo?.url ?? `${apiUrl}/user`, { headers });
        if (!response.ok) throw new Error(`GitHub: GET /user answered ${response.status}`);
        const profile = (await response.json()) as GitHubProfile & { email_verified?: boolean };
        // /user/emails (scope user:email) lists a private address, and says which addresses GitHub
        // verified: the public one of /user carries no such flag. Without the list, nothing is proven.
        const emails = await fetchFn(`${apiUrl}/user/emails`, { headers });
        const list: unknown = emails.ok ? await emails.json() : [];
        const isVerified = (e: unknown): e is GitHubEmail =>
          typeof e === "object" && e !== null && "verified" in e && e.verified === true;
        const verified = Array.isArray(list) ? list.filter(isVerified) : [];
        if (!profile.email) profile.email = (verified.find((e) => e.primary) ?? verified[0])?.email ?? null;
        const address = profile.email?.toLowerCase();
        profile.email_verified = !!address && verified.some((e) => e.email?.toLowerCase() === address);
        return profile as unknown as Profile;
      },
    },
    profile(profile) {
      return {
        id: String(profile.id),
        name: profile.name ?? profile.login,
        email: profile.email,
        image: profile.avatar_url,
      };
    },
    style: { brandColor: "#24292f", bg: "#24292f", text: "#ffffff" },
    options,
  };
}
