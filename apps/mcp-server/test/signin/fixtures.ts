import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { OAuth2Server } from "oauth2-mock-server";
import { CLI } from "../spawn.js";

/** A real local OAuth 2.0 server (oauth2-mock-server) that remembers what it was asked and issued. */
export interface MockIssuer {
  url: string;
  server: OAuth2Server;
  /** Query parameters of every authorization request. */
  authorizations: Record<string, string>[];
  /** Form bodies of every token request (grant type, code verifier, refresh token, …). */
  tokenRequests: Record<string, string>[];
  /** How many revocation requests arrived (the mock does not parse their form bodies). */
  revocations: number;
  /** Every token value it issued: access, refresh and ID tokens. */
  issued: string[];
  /** Makes the next token response's access token live `seconds` only. */
  shortLivedNext(seconds: number): void;
  stop(): Promise<void>;
}

/** Starts the mock on a free loopback port; it grants the scope `grantedScope` to every request. */
export async function startMockIssuer(grantedScope = "read"): Promise<MockIssuer> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate("RS256");
  await server.start(0, "127.0.0.1");
  // The mock names itself `localhost`, which may resolve to ::1 where it does not listen.
  server.issuer.url = `http://127.0.0.1:${server.address().port}`;
  const mock: MockIssuer = {
    url: server.issuer.url,
    server,
    authorizations: [],
    tokenRequests: [],
    revocations: 0,
    issued: [],
    shortLivedNext(seconds) {
      server.service.once("beforeResponse", (response) => {
        response.body.expires_in = seconds;
      });
    },
    stop: () => server.stop(),
  };
  server.service.on("beforeAuthorizeRedirect", (_redirect, request) => {
    mock.authorizations.push({ ...(request.query as Record<string, string>) });
  });
  server.service.on("beforeResponse", (response, request) => {
    mock.tokenRequests.push({ ...(request.body as Record<string, string>) });
    // The mock echoes only a scope sent to its token endpoint; a real server reports what it granted.
    response.body.scope = grantedScope;
    for (const key of ["access_token", "refresh_token", "id_token"]) {
      const value = response.body[key];
      if (typeof value === "string") mock.issued.push(value);
    }
  });
  server.service.on("beforeRevoke", () => {
    mock.revocations += 1;
  });
  // Tokens signed within one second would otherwise be identical, and a refresh indistinguishable.
  server.service.on("beforeTokenSigning", (token) => {
    token.payload.jti = randomUUID();
  });
  return mock;
}

/** A PagerDuty user as `/users/me` answers. */
export interface FakeUser {
  id: string;
  name: string;
  email: string;
}

/**
 * A stand-in for the PagerDuty REST API, enough for `Pager.WhoAmI`; records each Authorization
 * header, and answers `/users/me` with the user `users` holds for it (else Ada), so several
 * accounts can be told apart.
 */
export interface FakePagerDuty {
  url: string;
  authorizations: string[];
  /** The user each Authorization header (`Bearer …`) is. */
  users: Map<string, FakeUser>;
  stop(): Promise<void>;
}

const ADA: FakeUser = { id: "PUSER01", name: "Ada Lovelace", email: "ada@example.com" };

export async function startFakePagerDuty(): Promise<FakePagerDuty> {
  const authorizations: string[] = [];
  const users = new Map<string, FakeUser>();
  const server: Server = createServer((request, response) => {
    const authorization = request.headers.authorization ?? "";
    authorizations.push(authorization);
    const path = new URL(request.url ?? "/", "http://fake").pathname;
    const body =
      path === "/users/me"
        ? { user: { ...(users.get(authorization) ?? ADA), time_zone: "UTC", teams: [] } }
        : path === "/oncalls"
          ? { oncalls: [], limit: 100, offset: 0, more: false }
          : undefined;
    response.writeHead(body ? 200 : 404, { "content-type": "application/json" });
    response.end(JSON.stringify(body ?? { error: { message: "Not Found", code: 2100 } }));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    authorizations,
    users,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `login <provider> --no-browser` with `args`, and plays the browser: reads the URL from stderr, follows
 * it to the authorization server (which answers with a redirect, as after a user's consent), then
 * requests the loopback callback it redirects to.
 */
export async function loginThroughBrowser(
  provider: string,
  env: NodeJS.ProcessEnv,
  args: readonly string[] = [],
): Promise<CliRun & { authorizationUrl: string; callbackStatus: number; page: string }> {
  const child = spawn(process.execPath, [CLI, "login", provider, "--no-browser", ...args], {
    env: { PATH: process.env.PATH, ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const authorizationUrl = await new Promise<string>((resolve, reject) => {
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const url = /https?:\/\/\S+/.exec(stderr)?.[0];
      if (url) resolve(url);
    });
    child.on("close", (code) =>
      reject(new Error(`login exited with ${code} before printing a URL: ${stderr}`)),
    );
  });
  const consent = await fetch(authorizationUrl, { redirect: "manual" });
  const callback = consent.headers.get("location");
  if (consent.status !== 302 || !callback) throw new Error(`authorization answered ${consent.status}`);
  const landing = await fetch(callback);
  const page = await landing.text();
  const code = await exited;
  return { code, stdout, stderr, authorizationUrl, callbackStatus: landing.status, page };
}
