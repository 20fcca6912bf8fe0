// Each HTTP guard on its own, in front of a bare node:http handler on loopback: what a client is
// answered when the guard refuses, and that it lets through, untouched, what it should.
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type AuthInfo, OAuthError, OAuthErrorCode } from "@modelcontextprotocol/server";
import { afterAll, describe, expect, it } from "vitest";
import { KeySetUnavailable } from "../../src/http/auth/jwks.js";
import type { TokenVerifier } from "../../src/http/auth/verify.js";
import { type AuthPolicy, authGuard } from "../../src/http/guards/auth.js";
import { REFUSED, readJsonBody } from "../../src/http/guards/body.js";
import { hostGuard } from "../../src/http/guards/host.js";
import { type OriginPolicy, originGuard } from "../../src/http/guards/origin.js";
import type { View } from "../../src/views.js";

/** A guard under test: answers the request itself, or resolves to what it lets through. */
type Guard = (req: IncomingMessage, res: ServerResponse) => Promise<unknown>;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const servers: Array<{ close(): void }> = [];
afterAll(() => {
  for (const server of servers) server.close();
});

/**
 * A loopback server running `guard`; a request it lets through is answered 200 with what the guard
 * resolved to, as JSON (`null` for nothing).
 */
async function serve(guard: Guard): Promise<(options: Send) => Promise<Answer>> {
  const server = createServer(async (req, res) => {
    const passed = await guard(req, res);
    if (res.headersSent || res.writableEnded) return;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ passed: passed ?? null }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  const { port } = server.address() as AddressInfo;
  return (options) => send(port, options);
}

interface Send {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** One request over node:http, which (unlike fetch) sends the Host and Origin it is given. */
function send(port: number, { method = "POST", headers = {}, body }: Send): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path: "/mcp", headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
}

const messageOf = (answer: Answer): string =>
  (JSON.parse(answer.body) as { error: { message: string } }).error.message;
const passedOf = (answer: Answer): unknown => (JSON.parse(answer.body) as { passed: unknown }).passed;

describe("hostGuard", async () => {
  const call = await serve(async (req, res) => hostGuard(["mcp.example.com"])(req, res) || undefined);

  it.each(["127.0.0.1:3000", "localhost", "[::1]:8080", "mcp.example.com", "MCP.example.com:443"])(
    "lets Host %s through",
    async (host) => {
      expect((await call({ headers: { host } })).status).toBe(200);
    },
  );

  it.each([
    ["another name", "evil.example", "Invalid Host: evil.example"],
    ["user info before a loopback name", "evil.example@127.0.0.1", "Invalid Host: evil.example@127.0.0.1"],
    ["a path", "127.0.0.1/x", "Invalid Host: 127.0.0.1/x"],
  ])("refuses %s with 403, naming the Host", async (_case, host, message) => {
    const answer = await call({ headers: { host } });
    expect(answer.status).toBe(403);
    expect(messageOf(answer)).toBe(message);
  });
});

describe("originGuard", async () => {
  const policy: OriginPolicy = {
    allowed: ["https://app.example"],
    own: "https://mcp.example.com",
    loopback: true,
  };
  const call = await serve(async (req, res) => originGuard(policy)(req, res) || undefined);
  const closed = await serve(
    async (req, res) => originGuard({ ...policy, loopback: false })(req, res) || undefined,
  );

  it("lets a request without Origin through, without CORS headers (not a browser)", async () => {
    const answer = await call({});
    expect(answer.status).toBe(200);
    expect(answer.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("lets an origin of MCP_ALLOWED_ORIGINS call and read the answer", async () => {
    const answer = await call({ headers: { origin: "https://app.example" } });
    expect(answer.status).toBe(200);
    expect(answer.headers["access-control-allow-origin"]).toBe("https://app.example");
    expect(answer.headers["access-control-expose-headers"]).toContain("WWW-Authenticate");
    expect(answer.headers.vary).toBe("Origin");
  });

  it.each([
    ["the server's own origin", "https://mcp.example.com"],
    ["a loopback page on any port, when bound to loopback", "http://localhost:5173"],
  ])("lets %s call, without letting it read cross-origin", async (_case, origin) => {
    const answer = await call({ headers: { origin } });
    expect(answer.status).toBe(200);
    expect(answer.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("refuses another origin with 403, saying which setting allows it", async () => {
    const answer = await call({ headers: { origin: "https://evil.example" } });
    expect(answer.status).toBe(403);
    expect(messageOf(answer)).toBe(
      "Origin https://evil.example is not allowed. Add it to MCP_ALLOWED_ORIGINS to allow it.",
    );
  });

  it("refuses a loopback page when not bound to loopback", async () => {
    expect((await closed({ headers: { origin: "http://localhost:5173" } })).status).toBe(403);
  });

  it("answers an allowed origin's preflight with 204 and only MCP's headers of those asked for", async () => {
    const answer = await call({
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "Content-Type, Mcp-Param-Region, X-Custom, Authorization",
      },
    });
    expect(answer.status).toBe(204);
    expect(answer.headers["access-control-allow-headers"]).toBe(
      "content-type, mcp-param-region, authorization",
    );
    expect(answer.headers["access-control-allow-methods"]).toBe("GET, POST, DELETE");
  });

  it("refuses a loopback page's preflight: it may call, but not read answers cross-origin", async () => {
    const answer = await call({
      method: "OPTIONS",
      headers: { origin: "http://localhost:5173", "access-control-request-method": "POST" },
    });
    expect(answer.status).toBe(403);
    expect(messageOf(answer)).toContain("may not call from another origin");
  });

  it("lets Origin: null through only from the server's own pages (Sec-Fetch-Site: same-origin)", async () => {
    expect((await call({ headers: { origin: "null", "sec-fetch-site": "same-origin" } })).status).toBe(200);
    expect((await call({ headers: { origin: "null", "sec-fetch-site": "cross-site" } })).status).toBe(403);
  });
});

describe("readJsonBody", async () => {
  const call = await serve(async (req, res) => {
    const body = await readJsonBody(req, res, 200);
    return body === REFUSED ? undefined : body.raw;
  });
  const json = { "content-type": "application/json" };

  it("passes a JSON body within the limit through, parsed", async () => {
    const answer = await call({ headers: json, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    expect(answer.status).toBe(200);
    expect(passedOf(answer)).toEqual({ jsonrpc: "2.0", id: 1, method: "ping" });
  });

  it("reads nothing for a GET", async () => {
    const answer = await call({ method: "GET" });
    expect(answer.status).toBe(200);
    expect(passedOf(answer)).toBeNull();
  });

  it.each([
    [
      "another content type",
      { "content-type": "text/plain" },
      "{}",
      415,
      "Content-Type must be application/json.",
    ],
    [
      "a body over the limit",
      json,
      JSON.stringify({ padding: "x".repeat(300) }),
      413,
      "Request body too large.",
    ],
    ["bad JSON", json, "{not json", 400, "Request body is not valid JSON."],
  ])("answers %s with its status and a message", async (_case, headers, body, status, message) => {
    const answer = await call({ headers, body });
    expect(answer.status).toBe(status);
    expect(messageOf(answer)).toBe(message);
  });

  it('refuses a batch reusing an id (-32600), but not 1 and "1"', async () => {
    const ping = (id: unknown) => ({ jsonrpc: "2.0", id, method: "ping" });
    const reused = await call({ headers: json, body: JSON.stringify([ping(1), ping(1)]) });
    expect(reused.status).toBe(400);
    expect(JSON.parse(reused.body).error).toEqual({
      code: -32600,
      message: "Two requests in this batch have the id 1; each needs its own.",
    });
    const distinct = await call({ headers: json, body: JSON.stringify([ping(1), ping("1")]) });
    expect(distinct.status).toBe(200);
  });
});

describe("authGuard", async () => {
  const TOKEN = "token-of-alice";
  const METADATA = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
  /** A verifier taking `TOKEN` (as `info`), refusing any other, or failing as `failure` says. */
  const verifier = (info: Partial<AuthInfo>, failure?: Error): TokenVerifier => ({
    ready: async () => true,
    async verifyAccessToken(token) {
      if (failure) throw failure;
      if (token !== TOKEN) throw new OAuthError(OAuthErrorCode.InvalidToken, "Unknown token");
      // The SDK refuses a token without an expiry.
      return { token, clientId: "client-1", scopes: [], expiresAt: Date.now() / 1000 + 3600, ...info };
    },
  });
  const guarded = (policy: Partial<AuthPolicy> & Pick<AuthPolicy, "verifier">) =>
    serve(async (req, res) => {
      const passed = await authGuard({ resourceMetadataUrl: METADATA, perUser: false, ...policy })(req, res);
      return passed && { caller: passed.caller, view: passed.view?.id };
    });
  const bearer = { authorization: `Bearer ${TOKEN}` };
  const alice = { extra: { principal: "idp#alice" } };

  it("lets everyone through as the anonymous caller when no tokens are checked (loopback only)", async () => {
    const call = await guarded({ verifier: undefined });
    expect(passedOf(await call({}))).toEqual({ caller: { key: "" } });
  });

  it("names the caller by principal and client, keyed by a digest of the token, never the token", async () => {
    const call = await guarded({ verifier: verifier(alice) });
    const answer = await call({ headers: bearer });
    const digest = createHash("sha256").update(TOKEN).digest("base64url");
    expect(passedOf(answer)).toEqual({
      caller: { principal: "idp#alice", clientId: "client-1", key: digest },
    });
    expect(answer.body).not.toContain(TOKEN);
  });

  it("narrows the caller to the view the token's scopes give", async () => {
    const view = { id: "pager" } as View;
    const call = await guarded({ verifier: verifier(alice), viewOf: () => view });
    expect(passedOf(await call({ headers: bearer }))).toMatchObject({ view: "pager" });
  });

  it("answers a request without a token 401, pointing at the resource metadata", async () => {
    const call = await guarded({ verifier: verifier(alice) });
    const answer = await call({});
    expect(answer.status).toBe(401);
    expect(answer.headers["www-authenticate"]).toContain(`resource_metadata="${METADATA}"`);
  });

  it("with static tokens only (no metadata), says a bearer token is required", async () => {
    const call = await guarded({ verifier: verifier(alice), resourceMetadataUrl: undefined });
    const answer = await call({});
    expect(answer.status).toBe(401);
    expect(answer.headers["www-authenticate"]).toContain("A bearer token is required");
    expect(answer.headers["www-authenticate"]).not.toContain("resource_metadata");
  });

  it("answers an unknown token 401 invalid_token", async () => {
    const call = await guarded({ verifier: verifier(alice) });
    const answer = await call({ headers: { authorization: "Bearer someone-else" } });
    expect(answer.status).toBe(401);
    expect(answer.headers["www-authenticate"]).toContain('error="invalid_token"');
  });

  it("answers 503 with Retry-After while the key set cannot be fetched", async () => {
    const call = await guarded({ verifier: verifier(alice, new KeySetUnavailable(5)) });
    const answer = await call({ headers: bearer });
    expect(answer.status).toBe(503);
    expect(answer.headers["retry-after"]).toBe("5");
  });

  it("per user, refuses a token that names nobody with 403", async () => {
    const call = await guarded({ verifier: verifier({}), perUser: true });
    const answer = await call({ headers: bearer });
    expect(answer.status).toBe(403);
    expect(messageOf(answer)).toContain("your access token names nobody");
  });

  it("serves a token bound to a connector URL there and beneath it, and refuses it elsewhere", async () => {
    const bound = verifier({ ...alice, resource: new URL("https://mcp.example.com/mcp/pager") });
    const at = async (resource: string) =>
      (await guarded({ verifier: bound, resource }))({ headers: bearer });
    expect((await at("https://mcp.example.com/mcp/pager")).status).toBe(200);
    expect((await at("https://mcp.example.com/mcp/pager/readonly")).status).toBe(200);
    for (const resource of ["https://mcp.example.com/mcp", "https://mcp.example.com/mcp/pager+sheets"]) {
      const answer = await at(resource);
      expect(answer.status, resource).toBe(401);
      expect(answer.headers["www-authenticate"], resource).toContain('error="invalid_token"');
    }
  });

  it("serves a token bound to one account's connector URL at that account's URLs only", async () => {
    const bound = verifier({ ...alice, resource: new URL("https://mcp.example.com/mcp/sheets@work") });
    const at = async (path: string) =>
      (await guarded({ verifier: bound, resource: `https://mcp.example.com${path}` }))({ headers: bearer });
    for (const path of ["/mcp/sheets@work", "/mcp/sheets@work/readonly"])
      expect((await at(path)).status, path).toBe(200);
    // Another account, the default one, a label the bound one starts, and the same URL with more.
    for (const path of [
      "/mcp/sheets@home",
      "/mcp/sheets",
      "/mcp/sheets@workshop",
      "/mcp/sheets@work+pager",
      "/mcp/sheets@work:values",
    ])
      expect((await at(path)).status, path).toBe(401);
  });
});
