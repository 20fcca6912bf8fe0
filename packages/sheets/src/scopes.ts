import type { AnyToolDefinition, AuthRequirement } from "@toolkits/core";

/** The OAuth provider id the sheets tools ask their host for. */
export const GOOGLE = "google";

/** Files this app created or the user opened or picked with it; nothing else in the drive. */
export const DRIVE_FILE_SCOPE = "https://www.googleapis.com/auth/drive.file";
export const USERINFO_PROFILE_SCOPE = "https://www.googleapis.com/auth/userinfo.profile";
export const USERINFO_EMAIL_SCOPE = "https://www.googleapis.com/auth/userinfo.email";

/** A sheets tool's credential: the user's Google access token, granting `scopes`. */
export function googleAuth(...scopes: string[]): AuthRequirement {
  return { oauth: { provider: GOOGLE, scopes } };
}

/**
 * The Google OAuth scopes a set of tools needs: the sorted union of what each declares. Ask the
 * user to consent to these when signing in for exactly these tools.
 */
export function googleScopes(tools: readonly AnyToolDefinition[]): string[] {
  const scopes = new Set<string>();
  for (const tool of tools) {
    if (tool.auth.oauth?.provider === GOOGLE) for (const scope of tool.auth.oauth.scopes) scopes.add(scope);
  }
  return [...scopes].sort();
}
