import type { Configuration } from "oidc-provider";
import { LOOPBACK_HOSTS } from "../../http/listen.js";

/** A trigger for the metadata validator, which oidc-provider runs only for declared extra properties. */
const NATIVE_CHECK = "toolkits_native_check";

/** How clients are read: their metadata checked, their documents fetched. */
export interface ClientPolicy {
  extraClientMetadata: NonNullable<Configuration["extraClientMetadata"]>;
  fetch: NonNullable<Configuration["fetch"]>;
}

/**
 * The client rules oidc-provider does not have:
 * - redirect URIs are https, loopback http or in a scheme of an app's own (OAuth 2.1): plain http
 *   elsewhere, and a `*` (which would match nothing but reads as a wildcard), are refused with
 *   `invalid`'s error (`invalid_redirect_uri`);
 * - a client's `scope` metadata (the SDK registers the scopes the resource metadata lists) is
 *   ignored: the consent page decides what a token holds;
 * - a client with a loopback `http` redirect URI or one in a private scheme (`cursor://…`) is a
 *   native app (RFC 8252), whatever it says: its loopback redirect may then come on any port
 *   (Claude Code, VS Code), and a private scheme is accepted next to https ones (Cursor);
 * - metadata documents are fetched with oidc-provider's guard (https, 200 only, no redirects,
 *   5 KB, 2.5 s, special-use addresses refused), except from `privateHosts` (host or host:port),
 *   which may be on any address.
 */
export function clientPolicy(
  privateHosts: readonly string[],
  invalid: (message: string) => Error,
): ClientPolicy {
  const allowed = new Set(privateHosts.map((host) => host.toLowerCase()));
  return {
    extraClientMetadata: {
      properties: [NATIVE_CHECK],
      validator(_ctx, key, _value, metadata) {
        if (key !== NATIVE_CHECK) return;
        const uris = Array.isArray(metadata.redirect_uris) ? (metadata.redirect_uris as unknown[]) : [];
        const refused = uris.find(isRefusedRedirect);
        if (refused !== undefined)
          throw invalid(`redirect_uris may not hold ${String(refused)}: use https, or http on loopback`);
        if (uris.some(isNativeRedirect)) metadata.application_type = "native";
        delete metadata[NATIVE_CHECK];
        // A client's `scope` names what it may ask for, in the library's terms OpenID scopes only;
        // what a token may hold here is the resource's scopes, granted on the consent page.
        delete metadata.scope;
      },
    },
    fetch: (url, options) => {
      const target = new URL(url);
      if (allowed.has(target.host.toLowerCase()) || allowed.has(target.hostname.toLowerCase()))
        return fetch(url, { ...options, dispatcher: undefined } as RequestInit);
      return fetch(url, options as RequestInit);
    },
  };
}

/** Plain http away from loopback, or a `*` anywhere. */
function isRefusedRedirect(uri: unknown): boolean {
  const parsed = typeof uri === "string" ? URL.parse(uri) : null;
  if (!parsed) return false;
  return String(uri).includes("*") || (parsed.protocol === "http:" && !isLoopback(parsed.hostname));
}

/** A loopback `http` redirect, or one in a scheme of its own (not http, https or a forbidden one). */
function isNativeRedirect(uri: unknown): boolean {
  const parsed = typeof uri === "string" ? URL.parse(uri) : null;
  if (!parsed) return false;
  if (parsed.protocol === "http:") return isLoopback(parsed.hostname);
  return parsed.protocol !== "https:";
}

/** Whether a URL's host is a loopback interface (`localhost`, 127.0.0.1, [::1]). */
export const isLoopback = (hostname: string): boolean =>
  LOOPBACK_HOSTS.includes(hostname) || LOOPBACK_HOSTS.includes(hostname.replace(/^\[|\]$/g, ""));
