import { createHash, timingSafeEqual } from "node:crypto";
import {
  type AuthInfo,
  OAuthError,
  OAuthErrorCode,
  type OAuthTokenVerifier,
  verifyBearerToken,
} from "@modelcontextprotocol/server";
import type { Logger } from "@toolkits/core";
import { createRemoteJWKSet, type JWTVerifyGetKey, errors as joseErrors, jwtVerify } from "jose";
import type { ServerOptions } from "./options/index.js";

/** A static bearer token, optionally named after the person it belongs to (`alice:<token>`). */
export interface StaticToken {
  name?: string;
  token: string;
}

/** How HTTP callers authenticate, from `MCP_HTTP_BEARER_TOKENS` and `MCP_OAUTH_*`. */
export interface HttpAuthConfig {
  /** Static bearer tokens; any one is accepted. */
  staticTokens: StaticToken[];
  /** OAuth access tokens verified as JWTs against the issuer's JWKS, for this audience. */
  oauth?: { issuer: string; audience: string; jwksUrl: string };
}

/** Shortest static token accepted on a non-loopback interface, in characters. */
const MIN_TOKEN_LENGTH = 32;
const MAKE_TOKEN = "Make one with `openssl rand -hex 32`.";

/** Where the server listens, which decides whether weak static tokens are refused or only warned about. */
export interface TokenPolicy {
  loopback: boolean;
  warn(message: string): void;
}

/**
 * The auth configuration from `ServerOptions.auth` (`MCP_HTTP_BEARER_TOKENS`, `MCP_OAUTH_*`);
 * undefined when none is set. A blank entry in the bearer tokens (what a failed `$(openssl …)`
 * leaves) or a token shorter than 32 characters is refused on a non-loopback interface and warned
 * about on loopback. One token given twice (under two names, say) is refused anywhere: whoever holds
 * it would act as either.
 * @throws Error for an incomplete OAuth configuration, a repeated token, or weak static tokens off loopback.
 */
export function authConfig(auth: ServerOptions["auth"], policy: TokenPolicy): HttpAuthConfig | undefined {
  const parsed = auth.bearerTokens?.split(",").map((entry) => staticToken(entry.trim()));
  const staticTokens = parsed?.filter((entry) => entry.token) ?? [];
  const entries = parsed?.map((entry) => entry.token);
  const repeated = repeatedToken(staticTokens);
  if (repeated) throw new Error(repeated);
  const weakness = entries && tokenWeakness(entries);
  if (weakness && !policy.loopback) throw new Error(`${weakness} ${MAKE_TOKEN}`);
  if (weakness) {
    const unauthenticated = staticTokens.length ? "" : " The server runs without authentication.";
    policy.warn(`${weakness}${unauthenticated} ${MAKE_TOKEN}`);
  }
  const { oauthIssuer: issuer, oauthAudience: audience, oauthJwksUrl: jwksUrl } = auth;
  const anyOauth = issuer || audience || jwksUrl;
  if (anyOauth && !(issuer && audience && jwksUrl)) {
    throw new Error("OAuth needs all of MCP_OAUTH_ISSUER, MCP_OAUTH_AUDIENCE and MCP_OAUTH_JWKS_URL.");
  }
  const oauth = issuer && audience && jwksUrl ? { issuer, audience, jwksUrl } : undefined;
  return staticTokens.length || oauth ? { staticTokens, oauth } : undefined;
}

/** A person's name before the token: letters, digits and `._@-`, up to 64 characters. */
const NAMED_TOKEN = /^([A-Za-z0-9._@-]{1,64}):(.*)$/;

/** `alice:<token>` → a named token; anything else is a token without a name. */
function staticToken(entry: string): StaticToken {
  const named = NAMED_TOKEN.exec(entry);
  return named?.[1] && named[2] !== undefined ? { name: named[1], token: named[2] } : { token: entry };
}

/** The principal of a named static token's holder. */
const tokenPrincipal = (name: string): string => `token:${name}`;

/** The principal of a verified JWT's subject: its issuer and subject. */
const subjectPrincipal = (issuer: string, subject: string): string => `${issuer}#${subject}`;

/**
 * Who a request is from when its token identifies a person (`AuthInfo.extra.principal`, set by
 * `tokenVerifier`): a named static token or a JWT with a subject.
 */
export function principalOf(auth: AuthInfo | undefined): string | undefined {
  const principal = auth?.extra?.principal;
  return typeof principal === "string" ? principal : undefined;
}

/**
 * The principal a named static token belongs to, by the same constant-time comparison the front
 * door uses; undefined for an unknown or unnamed token. For the connect pages' sign-in form.
 */
export function namedTokenPrincipal(
  config: HttpAuthConfig | undefined,
): (token: string) => string | undefined {
  const match = staticTokenMatcher((config?.staticTokens ?? []).filter((entry) => entry.name));
  return (token) => {
    const name = match(token)?.name;
    return name && tokenPrincipal(name);
  };
}

/**
 * The static token `token` is, by constant-time comparison of SHA-256 digests; undefined for none.
 * Every candidate is compared, so the time taken does not tell which one matched.
 */
function staticTokenMatcher(tokens: readonly StaticToken[]): (token: string) => StaticToken | undefined {
  const known = tokens.map((entry) => ({ entry, digest: digest(entry.token) }));
  return (token) => {
    const presented = digest(token);
    return known.filter((candidate) => timingSafeEqual(candidate.digest, presented))[0]?.entry;
  };
}

/**
 * Why `config` cannot tell people apart, for `--credentials per-user`; undefined when it can.
 */
export function perUserProblem(config: HttpAuthConfig | undefined): string | undefined {
  const set =
    "set MCP_OAUTH_ISSUER, MCP_OAUTH_AUDIENCE and MCP_OAUTH_JWKS_URL (each person's access token names them), or name every static token: MCP_HTTP_BEARER_TOKENS=alice:<token>,bob:<token>.";
  if (!config) return `Per-user credentials need to know who is calling: ${set}`;
  const unnamed = config.staticTokens.filter((entry) => !entry.name).length;
  if (unnamed)
    return `Per-user credentials need a person for every token, but ${counted(unnamed, "token has", "tokens have")} no name: ${set}`;
  return undefined;
}

/** What is wrong with the static token list, never quoting a token; undefined when nothing is. */
function tokenWeakness(entries: string[]): string | undefined {
  const blank = entries.filter((token) => !token).length;
  const short = entries.filter((token) => token && token.length < MIN_TOKEN_LENGTH).length;
  const problems = [
    ...(blank ? [`${counted(blank, "blank entry", "blank entries")} (a failed $(…) leaves one)`] : []),
    ...(short ? [`${counted(short, "token", "tokens")} shorter than ${MIN_TOKEN_LENGTH} characters`] : []),
  ];
  return problems.length ? `MCP_HTTP_BEARER_TOKENS has ${problems.join(" and ")}.` : undefined;
}

/** What is wrong when two entries share a token, never quoting it; undefined when none do. */
function repeatedToken(tokens: readonly StaticToken[]): string | undefined {
  const holders = new Map<string, string[]>();
  for (const { token, name } of tokens)
    holders.set(token, [...(holders.get(token) ?? []), name ?? "(unnamed)"]);
  const shared = [...holders.values()].find((names) => names.length > 1);
  if (!shared) return undefined;
  return `MCP_HTTP_BEARER_TOKENS gives one token ${shared.length} times (${shared.join(", ")}): whoever holds it would act as any of them. Give each entry its own token. ${MAKE_TOKEN}`;
}

const counted = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/**
 * The answer when a token could not be checked at all, because the issuer's key set (JWKS) is
 * out of reach: the caller should retry after `retryAfterSeconds`, not sign in again.
 */
export class KeySetUnavailable extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super("Access tokens cannot be checked now: the authorization server's key set (JWKS) is unreachable.");
  }
}

/** Exactly `Bearer <token>`: the SDK's parser would ignore anything after the token. */
const BEARER_HEADER = /^Bearer \S+$/i;

/** Why a request without a token is refused by a server with static tokens only (no OAuth to offer). */
const BEARER_REQUIRED =
  "A bearer token is required: send 'Authorization: Bearer <token>' with a token from this server's operator (it has no OAuth sign-in)";

/**
 * Verifies an `Authorization` header through the SDK, refusing first one with anything after the
 * token. Without `resourceMetadataUrl` (no authorization server to point at), a missing header is
 * refused saying a bearer token is required.
 * @throws OAuthError for a missing, malformed or rejected token; KeySetUnavailable when it cannot be checked.
 */
export async function authenticate(
  header: string | undefined,
  verifier: OAuthTokenVerifier,
  resourceMetadataUrl: string | undefined,
): Promise<AuthInfo> {
  if (header === undefined && resourceMetadataUrl === undefined)
    throw new OAuthError(OAuthErrorCode.InvalidToken, BEARER_REQUIRED);
  if (header !== undefined && !BEARER_HEADER.test(header)) {
    throw new OAuthError(
      OAuthErrorCode.InvalidToken,
      "The Authorization header must be exactly 'Bearer <token>', with nothing after the token",
    );
  }
  return verifyBearerToken(header, { verifier, resourceMetadataUrl });
}

const digest = (value: string): Buffer => createHash("sha256").update(value).digest();
/** Static tokens never expire on their own; the SDK still wants a time (seconds). */
const STATIC_EXPIRY_SECONDS = 4_102_444_800;
/**
 * Clock difference tolerated between the issuer and this server, in seconds, the same for every
 * time claim: a token is accepted up to this long after its `exp`, before its `nbf`, and with an
 * `iat` this far ahead.
 */
export const CLOCK_SKEW_SECONDS = 30;

/** Verifies bearer tokens, and tells whether it can (its key set is reachable). */
export interface TokenVerifier extends OAuthTokenVerifier {
  /** Whether JWTs can be checked now: the JWKS is cached fresh or fetched within 3 s; true without OAuth. */
  ready(): Promise<boolean>;
}

/**
 * Verifies bearer tokens: static tokens by constant-time comparison of their SHA-256 digests,
 * then JWTs by signature (JWKS), issuer, audience, a required expiry and an issue time not in the
 * future. Failures to fetch the JWKS are told apart from bad tokens (see `remoteKeySet`).
 */
export function tokenVerifier(config: HttpAuthConfig, logger: Logger): TokenVerifier {
  const knownToken = staticTokenMatcher(config.staticTokens);
  const keys = config.oauth && remoteKeySet(new URL(config.oauth.jwksUrl), logger);
  return {
    ready: async () => (keys ? keys.ready() : true),
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      const matched = knownToken(token);
      if (matched) {
        const { name } = matched;
        const extra = name ? { principal: tokenPrincipal(name) } : undefined;
        return { token, clientId: "static-token", scopes: [], expiresAt: STATIC_EXPIRY_SECONDS, extra };
      }
      if (!keys || !config.oauth) throw new OAuthError(OAuthErrorCode.InvalidToken, "Unknown bearer token");
      const { payload } = await jwtVerify(token, keys, {
        issuer: config.oauth.issuer,
        audience: config.oauth.audience,
        requiredClaims: ["exp"],
        clockTolerance: CLOCK_SKEW_SECONDS,
      }).catch((error: unknown) => {
        throw error instanceof KeySetUnavailable ? error : rejection(error);
      });
      if (typeof payload.iat === "number" && payload.iat > Date.now() / 1000 + CLOCK_SKEW_SECONDS) {
        throw new OAuthError(
          OAuthErrorCode.InvalidToken,
          "Access token rejected: it was issued in the future (iat); check the issuer's clock",
        );
      }
      const scope = typeof payload.scope === "string" ? payload.scope : "";
      const subject = typeof payload.sub === "string" && payload.sub ? payload.sub : undefined;
      return {
        token,
        clientId: String(payload.client_id ?? payload.azp ?? payload.sub ?? "unknown"),
        scopes: scope.split(" ").filter(Boolean),
        // The SDK refuses a token past `expiresAt`; the tolerance must reach that check too.
        expiresAt: (payload.exp ?? 0) + CLOCK_SKEW_SECONDS,
        extra: subject && payload.iss ? { principal: subjectPrincipal(payload.iss, subject) } : undefined,
      };
    },
  };
}

/** The refusal of a token jose found wrong, saying what is wrong with it. */
function rejection(error: unknown): OAuthError {
  if (error instanceof joseErrors.JWTClaimValidationFailed && error.reason === "missing") {
    return new OAuthError(
      OAuthErrorCode.InvalidToken,
      `Access token rejected: it has no ${error.claim} claim`,
    );
  }
  if (error instanceof joseErrors.JWTExpired) {
    return new OAuthError(OAuthErrorCode.InvalidToken, "Access token rejected: it has expired (exp)");
  }
  const reason = error instanceof joseErrors.JOSEError ? error.message : "invalid token";
  return new OAuthError(OAuthErrorCode.InvalidToken, `Access token rejected: ${reason}`);
}

/** Longest a JWKS fetch may take before the key set counts as unreachable, in milliseconds. */
const JWKS_TIMEOUT_MS = 3_000;
/** How long after a failed JWKS fetch tokens are refused at once instead of fetching again, in milliseconds. */
const JWKS_RETRY_MS = 5_000;
/**
 * What jose throws when the key set itself could not be had: its generic error (a status other
 * than 200, a body that is not JSON), a timeout, a malformed set. Network failures are not jose's.
 */
const KEY_SET_FAILURES = new Set(["ERR_JOSE_GENERIC", "ERR_JWKS_TIMEOUT", "ERR_JWKS_INVALID"]);

/**
 * jose's remote key set, with a fetch bounded by `JWKS_TIMEOUT_MS`. When the set cannot be
 * fetched, tokens that need it get KeySetUnavailable rather than a refusal, and while no fresh
 * set is cached, later ones get it at once until `JWKS_RETRY_MS` has passed, rather than each
 * waiting for another fetch to time out. One error is logged per outage.
 */
function remoteKeySet(url: URL, logger: Logger): JWTVerifyGetKey & { ready(): Promise<boolean> } {
  const remote = createRemoteJWKSet(url, { timeoutDuration: JWKS_TIMEOUT_MS });
  let retryAt = 0;
  let down = false;
  const unavailable = () => new KeySetUnavailable(Math.max(1, Math.ceil((retryAt - Date.now()) / 1000)));
  const getKey: JWTVerifyGetKey = async (header, token) => {
    if (!remote.fresh && Date.now() < retryAt) throw unavailable();
    try {
      const key = await remote(header, token);
      if (down) logger.info("JWKS reachable again", { url: url.href });
      down = false;
      return key;
    } catch (error) {
      if (error instanceof joseErrors.JOSEError && !KEY_SET_FAILURES.has(error.code)) throw error;
      retryAt = Date.now() + JWKS_RETRY_MS;
      if (!down) {
        logger.error("JWKS unreachable: OAuth access tokens are answered 503 until it is back", {
          url: url.href,
          error: error instanceof Error ? error.message : String(error),
        });
      }
      down = true;
      throw unavailable();
    }
  };
  const ready = () =>
    remote.fresh
      ? Promise.resolve(true)
      : remote.reload().then(
          () => true,
          () => false,
        );
  return Object.assign(getKey, { ready });
}
