import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { OAuth2Server } from "oauth2-mock-server";
import { MOCK_USER_PARAM } from "./browser.js";

/** Who signs in at a mock server when the browser names nobody (a real browser, say): the mock's own user. */
export const MOCK_DEFAULT_USER = "johndoe";

/**
 * A real local OAuth 2.0 / OpenID Connect server (oauth2-mock-server) that signs in whoever the
 * test browser says (`browser({ user })` adds `mock_user=<user>` to each authorization request):
 * the tokens it then issues for that code, and for refresh tokens from it, have `sub` = the user
 * and `email` = `<user>@example.com`. Without one, `sub` is MOCK_DEFAULT_USER, without an email.
 */
export interface MockAuthServer {
  /** The issuer URL, on 127.0.0.1 (discovery at `/.well-known/openid-configuration`). */
  url: string;
  server: OAuth2Server;
  /** Query parameters of every authorization request. */
  authorizations: Record<string, string>[];
  /** Form bodies of every token request (grant type, code verifier, client secret, …). */
  tokenRequests: Record<string, string>[];
  /** Form bodies of every revocation request (token, token_type_hint, …), as they arrive. */
  revocations: Record<string, string>[];
  /** Every token value it issued: access, refresh and ID tokens. */
  issued: string[];
  /** Every authorization code it handed out. */
  codes: string[];
  /** Makes the next revocation request fail with this HTTP status. */
  failNextRevocation(status: number): void;
  /**
   * Makes the next token request fail as a server that echoes requests in its errors does: 400
   * `invalid_grant`, the request's form body (code, PKCE verifier, client secret) as the description.
   */
  echoNextTokenRequest(): void;
  /** Tokens issued from now on last `seconds` (undefined: the mock's default hour). */
  tokenLifetime(seconds: number | undefined): void;
  /**
   * Signs in `user` at the authorizations from now on that name nobody: a real browser (Chromium)
   * cannot add `mock_user` to a request it makes by following a redirect.
   */
  signInAs(user: string): void;
  /**
   * Refuses every refresh token issued to `user` from now on (400 `invalid_grant`), as a provider
   * does once the account is disabled or its tokens revoked.
   */
  refuseRefreshesOf(user: string): void;
  stop(): Promise<void>;
}

/** Starts a mock on a free loopback port. */
export async function startMockAuthServer(): Promise<MockAuthServer> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate("RS256");
  await server.start(0, "127.0.0.1");
  // The mock names itself `localhost`, which may resolve to ::1 where it does not listen.
  server.issuer.url = `http://127.0.0.1:${server.address().port}`;
  const usersByCode = new Map<string, string>();
  const scopesByCode = new Map<string, string>();
  const usersByRefreshToken = new Map<string, string>();
  const scopesByRefreshToken = new Map<string, string>();
  let lifetime: number | undefined;
  let unnamedUser: string | undefined;
  const refusedUsers = new Set<string>();
  const mock: MockAuthServer = {
    url: server.issuer.url,
    server,
    authorizations: [],
    tokenRequests: [],
    revocations: [],
    issued: [],
    codes: [],
    failNextRevocation(status) {
      server.service.once("beforeRevoke", (response) => {
        response.statusCode = status;
      });
    },
    echoNextTokenRequest() {
      server.service.once("beforeResponse", (response, request) => {
        const body = new URLSearchParams(request.body as Record<string, string>).toString();
        response.statusCode = 400;
        response.body = { error: "invalid_grant", error_description: `Refused: ${body}` };
      });
    },
    tokenLifetime(seconds) {
      lifetime = seconds;
    },
    signInAs(user) {
      unnamedUser = user;
    },
    refuseRefreshesOf(user) {
      refusedUsers.add(user);
    },
    stop: () => server.stop(),
  };
  const userOf = (body: Record<string, string>) =>
    (body.code && usersByCode.get(body.code)) ||
    (body.refresh_token && usersByRefreshToken.get(body.refresh_token)) ||
    undefined;
  server.service.on("beforeAuthorizeRedirect", (redirect, request) => {
    const query = { ...(request.query as Record<string, string>) };
    mock.authorizations.push(query);
    const code = redirect.url.searchParams.get("code");
    if (!code) return;
    mock.codes.push(code);
    const user = query[MOCK_USER_PARAM] ?? unnamedUser;
    if (user) usersByCode.set(code, user);
    if (query.scope) scopesByCode.set(code, query.scope);
  });
  server.service.on("beforeTokenSigning", (token, request) => {
    // Tokens signed within one second would otherwise be identical.
    token.payload.jti = randomUUID();
    if (lifetime !== undefined) token.payload.exp = Math.floor(Date.now() / 1000) + lifetime;
    const user = userOf(request.body as Record<string, string>);
    if (user) Object.assign(token.payload, { sub: user, email: `${user}@example.com` });
  });
  server.service.on("beforeResponse", (response, request) => {
    const body = request.body as Record<string, string>;
    mock.tokenRequests.push({ ...body });
    if (body.grant_type === "refresh_token" && refusedUsers.has(userOf(body) ?? "")) {
      response.statusCode = 400;
      response.body = { error: "invalid_grant", error_description: "The account is disabled." };
      return;
    }
    if (typeof response.body !== "object") return;
    // The mock grants "dummy" unless a scope is posted; a real server grants what was asked, and
    // a refresh grants what the original grant did.
    const asked = body.code
      ? scopesByCode.get(body.code)
      : body.refresh_token
        ? scopesByRefreshToken.get(body.refresh_token)
        : undefined;
    if (asked) response.body.scope = asked;
    if (lifetime !== undefined && "expires_in" in response.body) response.body.expires_in = lifetime;
    const user = userOf(body);
    const refresh = response.body.refresh_token;
    if (user && typeof refresh === "string") usersByRefreshToken.set(refresh, user);
    if (asked && typeof refresh === "string") scopesByRefreshToken.set(refresh, asked);
    for (const key of ["access_token", "refresh_token", "id_token"]) {
      const value = response.body[key];
      if (typeof value === "string") mock.issued.push(value);
    }
  });
  server.service.on("beforeRevoke", (_response, request) => {
    // The mock does not parse revocation bodies; read it here (the stream is still unread).
    readBody(request as unknown as IncomingMessage).then((text) =>
      mock.revocations.push(Object.fromEntries(new URLSearchParams(text))),
    );
  });
  return mock;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (text += chunk));
    request.on("end", () => resolve(text));
  });
}
