import type { AnyToolDefinition } from "@toolkits/core";
import type { ServerMetadata } from "openid-client";

/** Where the root README explains how to create the OAuth apps; quoted by configuration errors. */
export const README_SECTION = "the Sign-in section of the README";

/** The upstream accounts a person can connect: the OAuth providers and the marketing App API key. */
export const PROVIDER_IDS = ["pager", "google", "marketing"] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

/** The providers whose grants are OAuth tokens (`context.accessToken(id, scopes)`); `login` signs in to these. */
export const OAUTH_PROVIDER_IDS = ["pager", "google"] as const;
export type OAuthProviderId = (typeof OAUTH_PROVIDER_IDS)[number];

export const isProviderId = (value: string): value is ProviderId =>
  (PROVIDER_IDS as readonly string[]).includes(value);
export const isOAuthProvider = (value: string): value is OAuthProviderId =>
  (OAUTH_PROVIDER_IDS as readonly string[]).includes(value);

/** The authorization-server endpoints a grant needs: where to authorize, refresh and revoke. */
export type AuthorizationServer = Pick<
  ServerMetadata,
  "issuer" | "authorization_endpoint" | "token_endpoint" | "revocation_endpoint"
>;

/**
 * This deployment's OAuth client at one provider: `<PREFIX>_OAUTH_CLIENT_ID`, `_CLIENT_SECRET`,
 * `_ISSUER` (discover the endpoints there instead of the built-in ones) and, for PagerDuty,
 * `PAGER_REGION` (`us` or `eu`: which built-in endpoints).
 */
export interface OAuthClientConfig {
  clientId?: string;
  clientSecret?: string;
  issuer?: string;
  region?: string;
}

/** The OAuth client configuration of each OAuth provider. */
export type OAuthClients = Readonly<Record<OAuthProviderId, OAuthClientConfig>>;

/** A provider whose grants are OAuth tokens, and how to obtain them. */
export interface OAuthProvider {
  kind: "oauth";
  id: OAuthProviderId;
  /** The name people know it by, for pages and messages. */
  title: string;
  /** Prefix of its variables, for messages: `PAGER` → `PAGER_OAUTH_CLIENT_ID`. */
  envPrefix: string;
  /**
   * The built-in authorization server (authorization, token and revocation endpoints) of `region`.
   * @throws Error naming the allowed values for a region it does not know.
   */
  server(region: string | undefined): AuthorizationServer;
  /** The scopes to ask for, given every tool the server can compose. */
  scopes(tools: readonly AnyToolDefinition[]): string[];
  /** Extra authorization-request parameters. */
  authorizationParameters: Readonly<Record<string, string>>;
  /** Whether a grant of `granted` may serve a tool that declares `requested`. */
  covers(granted: readonly string[], requested: readonly string[]): boolean;
}

/** A provider whose grant is an API key the person pastes, with the region of its account. */
export interface KeyProvider {
  kind: "key";
  id: "marketing";
  title: string;
}

export type Provider = OAuthProvider | KeyProvider;
export type ProviderOf<P extends ProviderId> = P extends "marketing" ? KeyProvider : OAuthProvider;

const PAGER_IDENTITY_HOSTS: Readonly<Record<string, string>> = {
  us: "https://identity.pagerduty.com",
  eu: "https://identity.eu.pagerduty.com",
};

const pager: OAuthProvider = {
  kind: "oauth",
  id: "pager",
  title: "PagerDuty",
  envPrefix: "PAGER",
  server(setting) {
    const region = (setting || "us").toLowerCase();
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

const google: OAuthProvider = {
  kind: "oauth",
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
  // Google's consent screen lets the user untick scopes, so a grant may lack some a tool needs.
  covers: (granted, requested) => requested.every((scope) => granted.includes(scope)),
};

// Customer.io offers no revocation of an App API key from outside: it is deleted in its settings.
const marketing: KeyProvider = { kind: "key", id: "marketing", title: "Customer.io App API" };

/** Every provider, by id. */
export const PROVIDERS: { readonly [P in ProviderId]: ProviderOf<P> } = {
  pager,
  google,
  marketing,
};

/** The OAuth providers, in `OAUTH_PROVIDER_IDS` order. */
export const OAUTH_PROVIDERS: readonly OAuthProvider[] = OAUTH_PROVIDER_IDS.map((id) => PROVIDERS[id]);
