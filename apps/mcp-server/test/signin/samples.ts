import { Secret } from "@toolkits/core";
import type { OAuthGrant } from "../../src/credentials/grant.js";

/** A stored PagerDuty grant whose credentials are `<label>-access`, `<label>-refresh` and `<label>-secret`. */
export function sampleSignIn(label: string, overrides: Partial<OAuthGrant> = {}): OAuthGrant {
  return {
    provider: "pager",
    accessToken: new Secret("PAGER_ACCESS_TOKEN", `${label}-access`),
    refreshToken: new Secret("PAGER_REFRESH_TOKEN", `${label}-refresh`),
    expiresAt: Date.now() + 3_600_000,
    scopes: ["read"],
    tokenType: "bearer",
    connectedAt: Date.now(),
    server: { issuer: "https://identity.example", token_endpoint: "https://identity.example/token" },
    client: { id: "client-id", secret: new Secret("PAGER_OAUTH_CLIENT_SECRET", `${label}-secret`) },
    ...overrides,
  };
}
