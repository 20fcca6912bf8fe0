import { createHash, timingSafeEqual } from "node:crypto";
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { ServerOptions } from "../../options/index.js";

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
  /** The team's identity provider (`MCP_OAUTH_ISSUER`), where browsers sign in; set whenever it is. */
  idpIssuer?: string;
  /**
   * `--authorization-server builtin`: this server issues the access tokens of its MCP URL itself
   * (see http/auth/builtin.ts); `MCP_OAUTH_ISSUER` alone then names only where people sign in.
   */
  builtin?: boolean;
}

/** Shortest static token accepted on a non-loopback interface, in characters. */
const MIN_TOKEN_LENGTH = 32;
const MAKE_TOKEN = "Make one with `openssl rand -hex 32`.";

/** The settings `authConfig` reads; the mode defaults to `external`. */
export type AuthSettings = Omit<
  ServerOptions["auth"],
  | "authorizationServer"
  | "cimdPrivateHosts"
  | "accessTokenTtlS"
  | "refreshGraceS"
  | "revalidateIntervalS"
  | "grantMaxAgeS"
> &
  Partial<Pick<ServerOptions["auth"], "authorizationServer">>;

/** Where the server listens, which decides whether weak static tokens are refused or only warned about. */
export interface TokenPolicy {
  loopback: boolean;
  warn(message: string): void;
}

/**
 * The auth configuration from `ServerOptions.auth` (`MCP_HTTP_BEARER_TOKENS`, `MCP_OAUTH_*`,
 * `MCP_AUTHORIZATION_SERVER`); undefined when none is set. A blank entry in the bearer tokens (what a failed `$(openssl …)`
 * leaves) or a token shorter than 32 characters is refused on a non-loopback interface and warned
 * about on loopback. One token given twice (under two names, say) is refused anywhere: whoever holds
 * it would act as either.
 * @throws Error for an incomplete OAuth configuration (the built-in server may have the issuer alone), a
 *   repeated token, or weak static tokens off loopback.
 */
export function authConfig(auth: AuthSettings, policy: TokenPolicy): HttpAuthConfig | undefined {
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
  const builtin = auth.authorizationServer === "builtin";
  const anyOauth = issuer || audience || jwksUrl;
  // The built-in server signs people in at the issuer and needs none of its tokens.
  const signInOnly = builtin && !audience && !jwksUrl;
  if (anyOauth && !(issuer && audience && jwksUrl) && !signInOnly) {
    throw new Error("OAuth needs all of MCP_OAUTH_ISSUER, MCP_OAUTH_AUDIENCE and MCP_OAUTH_JWKS_URL.");
  }
  const oauth = issuer && audience && jwksUrl ? { issuer, audience, jwksUrl } : undefined;
  return staticTokens.length || oauth || builtin
    ? { staticTokens, oauth, idpIssuer: issuer, builtin }
    : undefined;
}

/** A person's name before the token: letters, digits and `._@-`, up to 64 characters. */
const NAMED_TOKEN = /^([A-Za-z0-9._@-]{1,64}):(.*)$/;

/** `alice:<token>` → a named token; anything else is a token without a name. */
function staticToken(entry: string): StaticToken {
  const named = NAMED_TOKEN.exec(entry);
  return named?.[1] && named[2] !== undefined ? { name: named[1], token: named[2] } : { token: entry };
}

/** The names of the named static tokens in `MCP_HTTP_BEARER_TOKENS` (`alice:<token>` → `alice`). */
export const tokenNames = (bearerTokens: string | undefined): string[] =>
  (bearerTokens ?? "")
    .split(",")
    .map((entry) => staticToken(entry.trim()).name)
    .filter((name) => name !== undefined);

/** The principal of a named static token's holder. */
export const tokenPrincipal = (name: string): string => `token:${name}`;

/** The principal of a verified JWT's subject: its issuer and subject. */
export const subjectPrincipal = (issuer: string, subject: string): string => `${issuer}#${subject}`;

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
export function staticTokenMatcher(
  tokens: readonly StaticToken[],
): (token: string) => StaticToken | undefined {
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

const digest = (value: string): Buffer => createHash("sha256").update(value).digest();
