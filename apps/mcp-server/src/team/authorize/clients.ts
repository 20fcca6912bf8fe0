import type { Configuration } from "oidc-provider";
import { LOOPBACK_HOSTS } from "../../http/listen.js";
import { MAX_LOGO_BYTES } from "./logo.js";

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
 *   `invalid`'s error (its message starts with `redirect_uris`, so the code is `invalid_redirect_uri`);
 * - a client's `scope` metadata (the SDK registers the scopes the resource metadata lists) is
 *   ignored: the consent page decides what a token holds;
 * - a client is usable only with the code flow and somewhere to send its codes: one without a
 *   redirect URI, or whose `response_types` leave out `code` (which RFC 7591 allows, and oidc-provider
 *   then takes without the authorization_code grant), is refused with `invalid`'s error
 *   (`invalid_client_metadata`), not registered to fail at its first authorization;
 * - a client with a loopback `http` redirect URI or one in a private scheme (`cursor://…`) is a
 *   native app (RFC 8252), whatever it says: its loopback redirect may then come on any port
 *   (Claude Code, VS Code), and a private scheme is accepted next to https ones (Cursor);
 * - metadata documents are fetched with oidc-provider's guard (https, 200 only, no redirects,
 *   5 KB, 2.5 s, special-use addresses refused), except from `privateHosts` (host or host:port),
 *   which may be on any address; a 200 answer's body is read here, bounded (see `readBounded`).
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
        const unusable = unusableReason(uris, metadata.response_types);
        if (unusable) throw invalid(unusable);
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
    fetch: async (url, options) => {
      const target = new URL(url);
      const trusted = allowed.has(target.host.toLowerCase()) || allowed.has(target.hostname.toLowerCase());
      const response = await fetch(
        url,
        (trusted ? { ...options, dispatcher: undefined } : options) as RequestInit,
      );
      return response.status === 200 ? readBounded(response) : response;
    },
  };
}

/**
 * `response` with its body read (within the fetch's time limit), at most MAX_LOGO_BYTES + 1 bytes
 * of it, the most any caller takes and one more, and its length declared. The library checks a
 * metadata document's size by that length first: reading a streamed one itself, it fails on its
 * own locked stream before it can say the document was too large.
 */
async function readBounded(response: Response): Promise<Response> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    chunks.push(chunk);
    size += chunk.length;
    // Leaving the loop cancels the rest.
    if (size > MAX_LOGO_BYTES) break;
  }
  const headers = new Headers(response.headers);
  // The body is decoded already: it goes on as plain bytes of this length.
  headers.delete("content-encoding");
  headers.delete("transfer-encoding");
  headers.set("content-length", String(size));
  return new Response(Buffer.concat(chunks), {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

/**
 * Why a client could never complete an authorization here, in words for its developer; undefined
 * when it can. `responseTypes` is as oidc-provider has it by then: the client's, else the default
 * (`code`); anything but an array is left to its own checks.
 */
function unusableReason(uris: readonly unknown[], responseTypes: unknown): string | undefined {
  if (!uris.length)
    return "A client needs at least one redirect URI (redirect_uris): it is where its authorization codes go.";
  if (Array.isArray(responseTypes) && !responseTypes.includes("code"))
    return 'This server takes clients of the authorization code flow only: response_types must include "code" (and grant_types authorization_code).';
  return undefined;
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
