import { Secret } from "@toolkits/core";
import type { OAuthClient } from "../../credentials/oauth.js";

/** The team's OpenID Connect issuer, and this server's client there. */
export interface OidcMethod {
  issuer: string;
  client: OAuthClient;
}

/** How browsers prove who they are here: one way, both, or (with `missing` saying why) neither. */
export interface SignInMethods {
  /** OpenID Connect at `MCP_OAUTH_ISSUER`, with `MCP_CONNECT_CLIENT_ID`. */
  oidc?: OidcMethod;
  /** A named static token (`MCP_HTTP_BEARER_TOKENS=name:token`): the principal it names, if any. */
  token?: (token: string) => string | undefined;
  /** With neither: what to set, for the page saying sign-in is not set up. */
  missing?: string;
}

/** Which way a person signs in. */
export type SignInKind = "oidc" | "token";

/** The way `principal` signs in: people calling with a named static token are `token:<name>`. */
export const signInKindOf = (principal: string): SignInKind =>
  principal.startsWith("token:") ? "token" : "oidc";

/** The ways the deployment's settings allow. */
export function signInMethods(settings: {
  issuer?: string;
  connectClient: { id?: string; secret?: string };
  identifyToken?: (token: string) => string | undefined;
}): SignInMethods {
  const { issuer, connectClient, identifyToken } = settings;
  const { id, secret } = connectClient;
  const oidc =
    issuer && id
      ? {
          issuer,
          client: { id, secret: secret ? new Secret("MCP_CONNECT_CLIENT_SECRET", secret) : undefined },
        }
      : undefined;
  if (oidc || identifyToken) return { oidc, token: identifyToken };
  return {
    missing: issuer
      ? "MCP_CONNECT_CLIENT_ID (and MCP_CONNECT_CLIENT_SECRET) is not set: register this server as a client of the identity provider."
      : "neither MCP_OAUTH_ISSUER nor named tokens (MCP_HTTP_BEARER_TOKENS=name:token) are set.",
  };
}
