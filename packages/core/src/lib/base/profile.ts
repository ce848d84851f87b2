import type { Profile, User } from "../../shapes/data.js";

/**
 * Maps the claims most OAuth 2 and OIDC servers share to a user: the one mapping for providers
 * without a `profile()` of their own. The id is `sub` or `id` (a profile with neither is refused:
 * an account needs an id); the name falls back to `preferred_username` and `nickname`, the image
 * to `avatar_url` and `image`.
 *
 * @example
 * ```ts
 * defaultProfile({ sub: "42", name: "Ada", email: "ada@example.com" }) // { id: "42", name: "Ada", ... }
 * ```
 */
export function defaultProfile(profile: Profile): User {
  const id = profile.sub ?? profile.id;
  if (id === undefined || id === null || id === "") {
    throw new TypeError("The profile has neither `sub` nor `id`; give the provider a `profile` callback.");
  }
  const image = [profile.picture, profile.avatar_url, profile.image].find((v) => typeof v === "string") as
    | string
    | undefined;
  return {
    id: String(id),
    name: profile.name ?? profile.preferred_username ?? profile.nickname ?? null,
    email: profile.email ?? null,
    image: image ?? null,
  };
}
