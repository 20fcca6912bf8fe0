import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOOLKITS } from "../src/toolkits.js";
import { connectHttp, type TestClient } from "./clients.js";
import { type RunningServer, runCli, startHttpServer } from "./spawn.js";

const TOKEN = "static-bearer-token-for-the-http-tests";
const ISSUER = "https://issuer.test";
const AUDIENCE = "toolkits-mcp-test";

let jwks: Server;
let jwksUrl: string;
let privateKey: Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];
let server: RunningServer;

beforeAll(async () => {
  const pair = await generateKeyPair("RS256");
  privateKey = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: "test-key", alg: "RS256", use: "sig" };
  jwks = createServer((_req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
  jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`;
  server = await startHttpServer(["--sandbox"], {
    MCP_HTTP_BEARER_TOKENS: `another-static-bearer-token-for-http-tests,${TOKEN}`,
    MCP_OAUTH_ISSUER: ISSUER,
    MCP_OAUTH_AUDIENCE: AUDIENCE,
    MCP_OAUTH_JWKS_URL: jwksUrl,
  });
});

afterAll(async () => {
  await server?.stop();
  jwks?.close();
});

function jwt(claims: { audience?: string; expiresIn?: string | number }) {
  return new SignJWT({ scope: "mcp" })
    .setProtectedHeader({ alg: "RS256", kid: "test-key" })
    .setIssuer(ISSUER)
    .setAudience(claims.audience ?? AUDIENCE)
    .setSubject("user-1")
    .setIssuedAt()
    .setExpirationTime(claims.expiresIn ?? "5m")
    .sign(privateKey);
}

const listRequest = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });

function post(headers: Record<string, string>, body = listRequest) {
  return fetch(server.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body,
  });
}

/** A raw request, since fetch will not send custom Host or Origin headers. */
function rawPost(headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(server.url);
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
      },
      (res) => {
        let body = "";
        res.on("data", (chunk) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end(listRequest);
  });
}

/** Every toolkit's tools, by the names the server lists them under. */
const SERVED = Object.values(TOOLKITS).flatMap((kit) => kit.tools.map((tool) => tool.name.replace(".", "_")));

/** That `client`'s caller is served every tool, and a call of one answers. */
async function expectServed(client: TestClient): Promise<void> {
  expect((await client.listTools()).map((tool) => tool.name)).toEqual(expect.arrayContaining(SERVED));
  const called = await client.call("Pager_WhoAmI");
  expect(called.isError, called.text).toBe(false);
  expect(called.data).toMatchObject({ user: { id: expect.any(String) } });
}

describe("toolkits-mcp over Streamable HTTP", () => {
  it("answers 401 with WWW-Authenticate and resource metadata without a token and with a wrong one", async () => {
    for (const headers of [{}, { authorization: "Bearer not-the-token" }] as Record<string, string>[]) {
      const response = await post(headers);
      expect(response.status).toBe(401);
      const challenge = response.headers.get("www-authenticate") ?? "";
      expect(challenge).toContain('error="invalid_token"');
      expect(challenge).toContain("resource_metadata=");
    }
    const metadataUrl = new URL("/.well-known/oauth-protected-resource/mcp", server.url);
    const metadata = await (await fetch(metadataUrl)).json();
    expect(metadata).toEqual({
      resource: server.url,
      authorization_servers: [ISSUER],
      bearer_methods_supported: ["header"],
    });
  });

  it("refuses a foreign Origin and a foreign Host with 403", async () => {
    const origin = await rawPost({ authorization: `Bearer ${TOKEN}`, origin: "https://evil.example" });
    expect(origin.status).toBe(403);
    expect(JSON.parse(origin.body).error.message).toContain("Origin https://evil.example is not allowed");
    const host = await rawPost({ authorization: `Bearer ${TOKEN}`, host: "evil.example" });
    expect(host.status).toBe(403);
    expect(JSON.parse(host.body).error.message).toBe("Invalid Host: evil.example");
  });

  it("refuses an oversized body with 413", async () => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: { pad: "x".repeat(1_100_000) },
    });
    const response = await post({ authorization: `Bearer ${TOKEN}` }, body);
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      "Request body too large.",
    );
  });

  it("refuses a body that is not JSON with 400", async () => {
    const response = await post({ authorization: `Bearer ${TOKEN}` }, "{not json");
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      "Request body is not valid JSON.",
    );
  });

  it("serves tools to the SDK client with a static token", async () => {
    const client = await connectHttp("v1", server.url, { authorization: `Bearer ${TOKEN}` });
    try {
      await expectServed(client);
      expect(client.serverInfo()?.name).toBe("toolkits-mcp");
    } finally {
      await client.close();
    }
  });

  it("accepts a valid JWT and refuses an expired one and one for another audience", async () => {
    const client = await connectHttp("v1", server.url, { authorization: `Bearer ${await jwt({})}` });
    try {
      await expectServed(client);
    } finally {
      await client.close();
    }
    const expired = await post({
      authorization: `Bearer ${await jwt({ expiresIn: Math.floor(Date.now() / 1000) - 60 })}`,
    });
    expect(expired.status).toBe(401);
    const foreign = await post({ authorization: `Bearer ${await jwt({ audience: "someone-else" })}` });
    expect(foreign.status).toBe(401);
    expect(foreign.headers.get("www-authenticate")).toContain("Access token rejected");
  });

  it("answers /healthz without authentication and 405 for GET /mcp", async () => {
    const health = await fetch(new URL("/healthz", server.url));
    expect(health.status).toBe(200);
    expect(((await health.json()) as { status: string }).status).toBe("ok");
    expect((await fetch(server.url, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(405);
  });
});

describe("HTTP start-up rules", () => {
  it("refuses to bind a non-loopback interface without authentication", async () => {
    const result = await runCli(["--transport", "http", "--host", "0.0.0.0", "--port", "0", "--sandbox"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Refusing to serve 0.0.0.0 without authentication");
  });
});
