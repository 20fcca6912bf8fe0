import { tokenFilePath } from "../credentials/token-file.js";
import { DEFAULT_RATE_LIMIT_SPEC, parseRateLimits } from "../team/limits.js";
import { DEFAULT_STORE_HINT, defaultStorePath } from "../team/store/location.js";
import { checked, duration, inGroup, integer, list, oneOf, text } from "./setting.js";

const inAuthentication = inGroup("Authentication");
const inPerUser = inGroup("Per-user");
const inStore = inGroup("Store");
const inSignin = inGroup("Sign-in");

/** The rows of one provider's OAuth client: `<PREFIX>_OAUTH_CLIENT_ID`, `_CLIENT_SECRET`, `_ISSUER`. */
const signinClient = (title: string, prefix: string) => ({
  clientId: inSignin({
    env: `${prefix}_OAUTH_CLIENT_ID`,
    parse: text,
    help: `the ${title} OAuth client's ID, for \`login\` and the per-user /connect pages`,
  }),
  clientSecret: inSignin({
    env: `${prefix}_OAUTH_CLIENT_SECRET`,
    parse: text,
    secret: true,
    help: "its client secret, when the client has one",
  }),
  issuer: inSignin({
    env: `${prefix}_OAUTH_ISSUER`,
    parse: text,
    help: `discover the endpoints from this issuer instead of ${title}'s (test servers, unusual set-ups)`,
  }),
});

/** The table's rows for who may call and whose credentials: HTTP authentication, per-user mode, sign-in. */
export const ACCESS = {
  auth: {
    bearerTokens: inAuthentication({
      env: "MCP_HTTP_BEARER_TOKENS",
      parse: text,
      secret: true,
      help: "comma-separated static bearer tokens, each at least 32 characters (make one with: openssl rand -hex 32); per-user mode names each person's: alice:<token>,bob:<token>",
    }),
    oauthIssuer: inAuthentication({
      flag: "--oauth-issuer <url>",
      env: "MCP_OAUTH_ISSUER",
      parse: text,
      help: "accept OAuth access tokens (JWTs) from this issuer (all three OAuth settings, or none; with --authorization-server builtin it may be alone: where people sign in)",
    }),
    oauthAudience: inAuthentication({
      flag: "--oauth-audience <audience>",
      env: "MCP_OAUTH_AUDIENCE",
      parse: text,
      help: "the audience those JWTs must name",
    }),
    oauthJwksUrl: inAuthentication({
      flag: "--oauth-jwks-url <url>",
      env: "MCP_OAUTH_JWKS_URL",
      parse: text,
      help: "where the issuer publishes the keys that sign them (JWKS)",
    }),
    authorizationServer: inAuthentication({
      flag: "--authorization-server <mode>",
      env: "MCP_AUTHORIZATION_SERVER",
      parse: oneOf(["external", "builtin"] as const),
      help: "external (the default: tokens come from MCP_OAUTH_ISSUER or MCP_HTTP_BEARER_TOKENS) or builtin (per-user: this server is the OAuth authorization server of its MCP URL; clients register by metadata document or DCR, people sign in at MCP_OAUTH_ISSUER or with a named token, and consent per client)",
    }),
    cimdPrivateHosts: inAuthentication({
      flag: "--cimd-private-hosts <hosts>",
      env: "MCP_CIMD_PRIVATE_HOSTS",
      parse: list,
      help: "builtin: comma-separated hosts (host or host:port) whose client metadata documents may be fetched from loopback, private or other special-use addresses (refused otherwise)",
    }),
    accessTokenTtlS: inAuthentication({
      flag: "--access-token-ttl <seconds>",
      env: "MCP_ACCESS_TOKEN_TTL",
      parse: integer(60, 86_400),
      default: 3_600,
      help: "builtin: how long its access tokens live, in seconds (as OAuth's expires_in); longer than any client's refresh margin (Gemini CLI refreshes 5 minutes early). Revoking still ends access at once: every request checks the token's grant",
    }),
    refreshGraceS: inAuthentication({
      flag: "--refresh-grace <seconds>",
      env: "MCP_REFRESH_GRACE",
      parse: integer(0, 300),
      default: 30,
      help: "builtin: a rotated refresh token presented again within this many seconds (clients refreshing concurrently) gets a sibling under the same grant; after it, reuse revokes the grant",
    }),
    revalidateIntervalS: inAuthentication({
      flag: "--revalidate-interval <duration>",
      env: "MCP_REVALIDATE_INTERVAL",
      parse: duration(1, 7 * 86_400),
      default: 3_600,
      shown: "1h",
      help: "builtin: how often a person who signed in at the identity provider with a refresh token is checked there again, when their grant is next used (90s, 15m, 1h…); a refusal (account disabled, token revoked) ends all their grants",
    }),
    grantMaxAgeS: inAuthentication({
      flag: "--grant-max-age <duration>",
      env: "MCP_GRANT_MAX_AGE",
      parse: duration(1, 365 * 86_400),
      default: 30 * 86_400,
      shown: "30d",
      help: "builtin: how long a grant lives when its person holds no refresh token at the identity provider (named static tokens, a provider granting none); then they sign in again",
    }),
  },
  credentials: inPerUser({
    flag: "--credentials <mode>",
    env: "MCP_CREDENTIALS",
    parse: oneOf(["shared", "per-user"] as const),
    default: "shared",
    help: "shared (everyone uses the server's upstream credentials) or per-user (HTTP: each person connects their own accounts at /connect)",
  }),
  rateLimits: inPerUser({
    flag: "--rate-limits <budgets>",
    env: "MCP_RATE_LIMITS",
    parse: checked(parseRateLimits),
    default: DEFAULT_RATE_LIMIT_SPEC,
    help: "per-person upstream budgets, shared by every replica (any subset overrides)",
  }),
  rateLimitWaitMs: inPerUser({
    flag: "--rate-limit-wait-ms <ms>",
    env: "MCP_RATE_LIMIT_WAIT_MS",
    parse: integer(0, 60_000),
    default: 3_000,
    help: "longest a call over its budget waits before answering rate_limited, in milliseconds",
  }),
  connectClient: {
    id: inPerUser({
      flag: "--connect-client-id <id>",
      env: "MCP_CONNECT_CLIENT_ID",
      parse: text,
      help: "the OpenID Connect client of the /connect pages' sign-in (redirect URI <public URL>/connect/signed-in)",
    }),
    secret: inPerUser({
      env: "MCP_CONNECT_CLIENT_SECRET",
      parse: text,
      secret: true,
      help: "its client secret",
    }),
  },
  storeUrl: inStore({
    flag: "--store <url>",
    env: "MCP_STORE_URL",
    parse: text,
    shown: DEFAULT_STORE_HINT,
    help: "per-user state: redis://host:6379 or rediss://… (any number of replicas), or file:///absolute/path.json (one process)",
  }),
  storeKey: inStore({
    env: "MCP_STORE_KEY",
    parse: text,
    secret: true,
    help: "required in per-user mode: 32 random bytes, base64 (openssl rand -base64 32), sealing every stored record (AES-256-GCM)",
  }),
  storeKeyPrevious: inStore({
    env: "MCP_STORE_KEY_PREVIOUS",
    parse: text,
    secret: true,
    help: "during a rotation, the key before: records sealed under it still open, and are sealed again under MCP_STORE_KEY when read",
  }),
  storePath: inStore({
    env: "XDG_STATE_HOME",
    parse: (directory) => defaultStorePath({ XDG_STATE_HOME: directory }),
    default: defaultStorePath({}),
    shown: "~/.local/state",
    help: "the default store file is toolkits-mcp/store.json in this directory (a relative one counts as unset)",
  }),
  oauthClients: {
    pager: {
      ...signinClient("PagerDuty", "PAGER"),
      region: inSignin({
        env: "PAGER_REGION",
        parse: text,
        help: "eu also moves sign-in to identity.eu.pagerduty.com (the default is identity.pagerduty.com)",
      }),
    },
    google: signinClient("Google", "GOOGLE"),
  },
  tokenFile: inSignin({
    env: "XDG_CONFIG_HOME",
    parse: (directory) => tokenFilePath({ XDG_CONFIG_HOME: directory }),
    default: tokenFilePath({}),
    shown: "~/.config",
    help: "`login` keeps its tokens in toolkits-mcp/tokens.json in this directory (a relative one counts as unset)",
  }),
  browser: inSignin({
    env: "BROWSER",
    parse: (value) => value !== "none",
    default: true,
    help: "none: `login` only prints the sign-in URL, as with --no-browser",
  }),
};
