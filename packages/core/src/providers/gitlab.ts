/**
 * Sign in with GitLab (OAuth 2), on gitlab.com or a self-managed instance.
 *
 * - Callback URL to register: `<origin>/auth/callback/gitlab`
 * - Environment variables: `AUTH_GITLAB_ID`, `AUTH_GITLAB_SECRET`
 *
 * For a self-managed instance, pass `baseUrl`.
 *
 * @example
 * ```ts
 * import GitLab from "@latchkey/core/providers/gitlab"
 * GitLab({ clientId: process.env.AUTH_GITLAB_ID, clientSecret: process.env.AUTH_GITLAB_SECRET })
 * GitLab({ baseUrl: "https://gitlab.example.com" })
 * ```
 * @see https://docs.gitlab.com/ee/api/oauth2.html
 * @module providers/gitlab
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js";

/** The current user of the GitLab REST API (`GET /api/v4/user`). */
export interface GitLabProfile {
  id: number;
  username: string;
  name: string;
  email: string;
  public_email?: string | null;
  state: "active" | "blocked" | "deactivated" | string;
  locked?: boolean;
  avatar_url: string;
  web_url: string;
  created_at: string;
  bio: string;
  location: string | null;
  skype: string;
  linkedin: string;
  twitter: string;
  discord?: string;
  website_url: string;
  organization: string | null;
  job_title: string;
  pronouns?: string | null;
  bot: boolean;
  work_information?: string | null;
  followers?: number;
  following?: number;
  local_time?: string | null;
  last_sign_in_at: string | null;
  confirmed_at: string | null;
  last_activity_on: string | null;
  theme_id: number;
  color_scheme_id: number;
  projects_limit: number;
  current_sign_in_at: string | null;
  identities: Array<{ provider: string; extern_uid: string }>;
  can_create_group: boolean;
  can_create_project: boolean;
  two_factor_enabled: boolean;
  external: boolean;
  private_profile: boolean;
  commit_email?: string;
  [claim: string]: unknown;
}

export interface GitLabOptions extends OAuthUserConfig<GitLabProfile> {
  /** A self-managed GitLab. @default "https://gitlab.com" */
  baseUrl?: string;
}

export default function GitLab(options: GitLabOptions = {}): OAuthConfig<GitLabProfile> {
  const baseUrl = (options.baseUrl ?? "https://gitlab.com").replace(/\/+$/, "");
  return {
    id: "gitlab",
    name: "GitLab",
    type: "oauth",
    authorization: { url: `${baseUrl}/oauth/authorize`, params: { scope: "read_user" } },
    token: `${baseUrl}/oauth/token`,
    userinfo: `${baseUrl}/api/v4/user`,
    profile(profile) {
      return {
        id: String(profile.id),
        name: profile.name || profile.username,
        email: profile.email || profile.public_email || null,
        image: profile.avatar_url,
      };
    },
    style: { brandColor: "#fc6d26", bg: "#fc6d26", text: "#ffffff" },
    options,
  };
}
