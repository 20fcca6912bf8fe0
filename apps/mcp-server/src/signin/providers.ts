import type { AnyToolDefinition } from "@toolkits/core";
import { ToolError } from "@toolkits/core";
import type { ServerMetadata } from "openid-client";

/** Where the root README explains how to create the OAuth apps; quoted by configuration errors. */
export const README_SECTION = "the Sign-in section of the README";

/** The authorization-server endpoints a sign-in needs. */
export type AuthorizationServer = Pick<
  ServerMetadata,
  "issuer" | "authorization_endpoint" | "token_endpoint" | "revocation_endpoint"
>;

/** An OAuth provider the toolkits ask tokens of (`context.accessToken(id, scopes)`), and how to sign in to it. */
export interface Provider {
  /** The provider id the toolkits use: `pager`, `google`. */
  id: string;
  /** The name people know it by, for messages. */
  title: string;
  /** Prefix of its environment variables: `PAGER` → `PAGER_OAUTH_CLIENT_ID`. */
  envPrefix: string;
  /**
   * The built-in authorization server for this environment.
   * @throws Error for a region setting it does not know.
   */
  server(env: NodeJS.ProcessEnv): AuthorizationServer;
  /** The scopes to ask for, given every tool the server can compose. */
  scopes(tools: readonly AnyToolDefinition[]): string[];
  /** Extra authorization-request parameters. */
  authorizationParameters: Readonly<Record<string, string>>;
  /** Whether a sign-in that was granted `granted` may serve a tool that declares `requested`. */
  covers(granted: readonly string[], requested: readonly string[]): boolean;
}

const PAGER_IDENTITY_HOSTS: Readonly<Record<string, string>> = {
  us: "https://identity.pagerduty.com",
  eu: "https://identity.eu.pagerduty.com",
};

const pager: Provider = {
  id: "pager",
  title: "PagerDuty",
  envPrefix: "PAGER",
  server(env) {
    const region = (env.PAGER_REGION || "us").toLowerCase();
    const origin = PAGER_IDENTITY_HOSTS[region];
    if (!origin) {
      throw new Error(
        `PAGER_REGION is "${region}"; allowed values: ${Object.keys(PAGER_IDENTITY_HOSTS).join(", ")}.`,
      );
    }
    return {
      issuer: origin,
      authorization_endpoint: `${origin}/oauth/authorize`,
      token_endpoint: `${origin}/oauth/token`,
      revocation_endpoint: `${origin}/oauth/revoke`,
    };
  },
  // The tools declare scoped-OAuth names (`users.read`, …); a classic app's `read` grants them all,
  // and every Pager tool is read-only.
  scopes: () => ["read"],
  authorizationParameters: {},
  covers: () => true,
};

/**
 * What the sheets tools need today: files the user creates or picks with this app (never the whole
 * drive) and who the user is. Tools declaring more add to it.
 */
const GOOGLE_BASE_SCOPES = [
  "https://www.googleapis.com/auth/drive.file",
  "https://www.googleapis.com/auth/userinfo.email",
  "https://www.googleapis.com/auth/userinfo.profile",
];

const google: Provider = {
  id: "google",
  title: "Google",
  envPrefix: "GOOGLE",
  server: () => ({
    issuer: "https://accounts.google.com",
    authorization_endpoint: "https://accounts.google.com/o/oauth2/v2/auth",
    token_endpoint: "https://oauth2.googleapis.com/token",
    revocation_endpoint: "https://oauth2.googleapis.com/revoke",
  }),
  scopes: (tools) => {
    const scopes = new Set(GOOGLE_BASE_SCOPES);
    for (const tool of tools) {
      if (tool.auth.oauth?.provider === "google")
        for (const scope of tool.auth.oauth.scopes) scopes.add(scope);
    }
    return [...scopes].sort();
  },
  // Without offline access Google issues no refresh token; without consent it issues one only the
  // first time this client is authorized.
  authorizationParameters: { access_type: "offline", prompt: "consent" },
  // Google's consent screen lets the user untick scopes, so a sign-in may lack some a tool needs.
  covers: (granted, requested) => requested.every((scope) => granted.includes(scope)),
};

/** The providers `toolkits-mcp login` knows, by id. */
export const PROVIDERS: Readonly<Record<string, Provider>> = { pager, google };

/** The OAuth client settings of a provider, from `<PREFIX>_OAUTH_*` environment variables. */
export interface ClientSettings {
  clientId: string;
  clientSecret: string | undefined;
  /** `<PREFIX>_OAUTH_ISSUER`: discover the endpoints from this issuer instead of the built-in ones. */
  issuer: string | undefined;
}

/**
 * Reads a provider's OAuth client settings.
 * @throws Error naming the missing variable and where the README explains it.
 */
export function clientSettings(provider: Provider, env: NodeJS.ProcessEnv): ClientSettings {
  const name = (suffix: string) => `${provider.envPrefix}_OAUTH_${suffix}`;
  const clientId = env[name("CLIENT_ID")];
  if (!clientId) {
    throw new Error(
      `${name("CLIENT_ID")} is not set. Create a ${provider.title} OAuth app, then set ${name("CLIENT_ID")}` +
        ` (and ${name("CLIENT_SECRET")} when the app has one); ${README_SECTION} explains how.`,
    );
  }
  return {
    clientId,
    clientSecret: env[name("CLIENT_SECRET")] || undefined,
    issuer: env[name("ISSUER")] || undefined,
  };
}

/** The error that tells the user (through the model) to sign in again. */
export function signInAgain(provider: Provider, what: string): ToolError {
  return new ToolError(
    "unauthenticated",
    `The stored ${provider.title} sign-in ${what}. Run \`toolkits-mcp login ${provider.id}\` again, then retry.`,
    { retryable: false },
  );
}
