import { Agent, createServer, type IncomingHttpHeaders, request, type Server } from "node:http";
import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, runCli, startHttpServer } from "./spawn.js";

// What a client sees of the HTTP server's limits, refusals and shutdown, against the built binary.

const TOKEN = "static-bearer-token-for-the-hardening-tests";
const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });

const running: RunningServer[] = [];
const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
afterAll(async () => {
  await Promise.all(running.map((server) => server.stop()));
});

async function start(args: string[], env: NodeJS.ProcessEnv = {}): Promise<RunningServer> {
  const server = await startHttpServer(args, env);
  running.push(server);
  return server;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** Whether the request went over a kept-alive connection. */
  reusedSocket: boolean;
}

/** One request through node:http; `agent: false` gives it a connection of its own. */
function send(
  url: string,
  { path = "/mcp", method = "POST", headers = {}, body = LIST, agent = false as Agent | false } = {},
): Promise<Answer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path,
        method,
        agent,
        headers: {
          ...(method === "POST" && {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          }),
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: text,
            reusedSocket: req.reusedSocket,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(method === "GET" ? undefined : body);
  });
}

/** A raw connection that writes `head` and records what comes back and when the server closes it. */
function raw(url: string, head = "") {
  const target = new URL(url);
  const socket = connect(Number(target.port), target.hostname);
  const opened = performance.now();
  let received = "";
  const errors: string[] = [];
  socket.setEncoding("utf8");
  socket.on("data", (chunk) => (received += chunk));
  socket.on("error", (error: NodeJS.ErrnoException) => errors.push(error.code ?? error.message));
  if (head) socket.write(head);
  const closed = new Promise<number>((resolve) =>
    socket.once("close", () => resolve(performance.now() - opened)),
  );
  closers.push(() => socket.destroy());
  return {
    socket,
    closed,
    errors,
    received: () => received,
    status: () => Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0),
    header: (name: string) => new RegExp(`^${name}: *(.*?)\r$`, "im").exec(received)?.[1],
  };
}

/** Writes `parts` one every `everyMs` until they run out or the server closes the connection. */
async function trickle(socket: ReturnType<typeof raw>["socket"], parts: string[], everyMs: number) {
  for (const part of parts) {
    if (socket.destroyed || socket.readableEnded) return;
    socket.write(part);
    await sleep(everyMs);
  }
}

const head = (path: string, headers: Record<string, string | number>) =>
  `POST ${path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("")}\r\n`;

describe("connection limits", () => {
  let server: RunningServer;
  beforeAll(async () => {
    const timeouts = ["--header-timeout-ms", "1000", "--body-timeout-ms", "1000"];
    // Every connection here comes from one address: an explicit per-address limit wins over its
    // default share (a quarter of --max-connections).
    const flags = [...timeouts, "--max-connections", "20", "--max-connections-per-address", "20"];
    // The environment equivalents work as well.
    server = await start(["--toolkits", "pager", ...flags], { MCP_KEEP_ALIVE_TIMEOUT_MS: "1000" });
  });

  it("closes connections that send nothing after --header-timeout-ms and holds no more than --max-connections, while /healthz answers", async () => {
    const first = Array.from({ length: 10 }, () => raw(server.url));
    await sleep(100);
    expect((await send(server.url, { path: "/healthz", method: "GET" })).status).toBe(200);
    const more = Array.from({ length: 30 }, () => raw(server.url));
    const all = [...first, ...more];
    const lifetimes = await Promise.all(all.map((connection) => connection.closed));
    // Over the limit, connections are closed as soon as they are accepted ...
    const dropped = lifetimes.filter((ms) => ms < 500);
    expect(dropped.length).toBeGreaterThanOrEqual(20);
    // ... and the ones held are answered 408 and closed once silent for the header limit.
    const held = all.filter((_, index) => (lifetimes[index] ?? 0) >= 500);
    expect(held.length).toBeGreaterThanOrEqual(10);
    expect(held.map((connection) => connection.status())).toEqual(held.map(() => 408));
    const heldFor = lifetimes.filter((ms) => ms >= 500);
    expect(Math.min(...heldFor)).toBeGreaterThanOrEqual(950);
    expect(Math.max(...heldFor)).toBeLessThan(2_500);
    expect((await send(server.url, { path: "/healthz", method: "GET" })).status).toBe(200);
    // Warned when the limit is reached, not for every connection refused.
    const warnings = server.stderr().match(/--max-connections reached/g) ?? [];
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    expect(warnings.length).toBeLessThan(dropped.length);
  });

  it("answers 408 to headers that are not complete --header-timeout-ms after their first byte", async () => {
    const connection = raw(server.url);
    const lines = ["POST /mcp HTTP/1.1\r\n", "Host: 127.0.0.1\r\n", ...Array(30).fill("X-Pad: 1\r\n")];
    void trickle(connection.socket, lines, 100);
    const ms = await connection.closed;
    expect(connection.status()).toBe(408);
    expect(ms).toBeGreaterThanOrEqual(950);
    expect(ms).toBeLessThan(2_000);
  });

  it("answers 408 to a body not complete --header-timeout-ms + --body-timeout-ms after the first byte", async () => {
    const headers = { host: "127.0.0.1", "content-type": "application/json", "content-length": 100 };
    const connection = raw(server.url, head("/mcp", headers));
    void trickle(connection.socket, Array(100).fill(" "), 100);
    const ms = await connection.closed;
    expect(connection.status()).toBe(408);
    expect(ms).toBeGreaterThanOrEqual(1_950);
    expect(ms).toBeLessThan(3_000);
    // A client cut off is not a server failure.
    expect(server.stderr()).not.toContain("HTTP request failed");
  });

  it("closes a keep-alive connection idle for --keep-alive-timeout-ms (Node adds 1 s)", async () => {
    const connection = raw(server.url, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await expect.poll(() => connection.status()).toBe(200);
    const answered = performance.now();
    expect(connection.header("keep-alive")).toBe("timeout=1");
    await connection.closed;
    const idle = performance.now() - answered;
    expect(idle).toBeGreaterThanOrEqual(950);
    expect(idle).toBeLessThan(3_000);
  });
});

describe("refusals", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await start(["--sandbox", "--toolkits", "pager", "--allowed-origins", "https://app.example"], {
      MCP_HTTP_BEARER_TOKENS: TOKEN,
    });
  });

  const upload = { host: "127.0.0.1", "content-type": "application/json", "content-length": 900_000 };
  const authorized = { ...upload, authorization: `Bearer ${TOKEN}` };

  it("answers an unknown path, a missing token, a foreign Host and a declared oversize body without reading the body", async () => {
    const cases: [Record<string, string | number>, string, number][] = [
      [authorized, "/nowhere", 404],
      [upload, "/mcp", 401],
      [{ ...authorized, host: "evil.com@127.0.0.1" }, "/mcp", 403],
      [{ ...authorized, "content-length": 2_000_000 }, "/mcp", 413],
    ];
    for (const [headers, path, status] of cases) {
      // Only the headers are sent: the answer, and the close, come without the body.
      const connection = raw(server.url, head(path, headers));
      await connection.closed;
      expect(connection.status(), `${path} ${status}`).toBe(status);
      expect(connection.header("connection")).toBe("close");
    }
  });

  it("answers 100 held 900 KB uploads to an unknown path at once, unread", async () => {
    const connections = Array.from({ length: 100 }, () => raw(server.url, head("/nowhere", upload)));
    const lifetimes = await Promise.all(connections.map((connection) => connection.closed));
    expect(connections.map((connection) => connection.status())).toEqual(Array(100).fill(404));
    expect(Math.max(...lifetimes)).toBeLessThan(2_000);
    expect((await send(server.url, { path: "/healthz", method: "GET" })).status).toBe(200);
  });

  it("keeps the connection of a request whose body was read", async () => {
    const body = LIST;
    const headers = {
      ...authorized,
      accept: "application/json, text/event-stream",
      "content-length": body.length,
    };
    const connection = raw(server.url, head("/mcp", headers) + body);
    await expect.poll(() => connection.status()).toBe(200);
    expect(connection.header("connection")).toBe("keep-alive");
  });

  it("refuses an Authorization header with anything after the token", async () => {
    const junk = await send(server.url, { headers: { authorization: `Bearer ${TOKEN} junk` } });
    expect(junk.status).toBe(401);
    expect(junk.headers["www-authenticate"]).toContain("nothing after the token");
    expect((await send(server.url, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  it("refuses a JSON-RPC batch whose requests share an id, rather than dropping an answer", async () => {
    const batch = (ids: unknown[]) =>
      send(server.url, {
        headers: { authorization: `Bearer ${TOKEN}`, "mcp-protocol-version": "2025-11-25" },
        body: JSON.stringify(ids.map((id) => ({ jsonrpc: "2.0", id, method: "ping" }))),
      });
    const clash = await batch([1, 1]);
    expect(clash.status).toBe(400);
    expect(JSON.parse(clash.body).error).toMatchObject({
      code: -32600,
      message: expect.stringContaining("id 1"),
    });
    const distinct = await batch([1, "1"]);
    expect(distinct.status).toBe(200);
    expect(distinct.body.match(/^data: /gm)).toHaveLength(2);
  });

  it("answers a CORS preflight from an allowed origin, gives its answers CORS headers, and refuses other origins' preflights", async () => {
    const preflight = (origin: string) =>
      send(server.url, {
        method: "OPTIONS",
        body: "",
        headers: {
          origin,
          "access-control-request-method": "POST",
          "access-control-request-headers":
            "authorization, content-type, mcp-protocol-version, mcp-method, mcp-param-spreadsheet-id, x-other",
        },
      });
    const allowed = await preflight("https://app.example");
    expect(allowed.status).toBe(204);
    expect(allowed.headers["access-control-allow-origin"]).toBe("https://app.example");
    expect(allowed.headers["access-control-allow-methods"]).toContain("POST");
    expect(allowed.headers["access-control-allow-headers"]).toBe(
      "authorization, content-type, mcp-protocol-version, mcp-method, mcp-param-spreadsheet-id",
    );
    expect(allowed.headers.vary).toContain("Origin");
    for (const origin of ["https://other.example", "http://localhost:5173"]) {
      expect((await preflight(origin)).status, origin).toBe(403);
    }
    for (const headers of [{}, { authorization: `Bearer ${TOKEN}` }]) {
      const answer = await send(server.url, { headers: { origin: "https://app.example", ...headers } });
      expect(answer.headers["access-control-allow-origin"]).toBe("https://app.example");
      expect(answer.headers.vary).toBe("Origin");
      expect(answer.headers["access-control-expose-headers"]).toContain("WWW-Authenticate");
    }
  });
});

describe("OAuth access tokens", () => {
  const ISSUER = "https://issuer.test";
  const AUDIENCE = "toolkits-mcp-test";
  let keys: Awaited<ReturnType<typeof generateKeyPair>>;
  beforeAll(async () => {
    keys = await generateKeyPair("RS256");
  });

  async function jwksServer(answer: boolean): Promise<string> {
    const jwk = { ...(await exportJWK(keys.publicKey)), kid: "k1", alg: "RS256", use: "sig" };
    const jwks: Server = createServer((_req, res) => {
      // A hanging endpoint never answers.
      if (answer)
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
    closers.push(
      () => jwks.closeAllConnections(),
      () => jwks.close(),
    );
    const { port } = jwks.address() as { port: number };
    return `http://127.0.0.1:${port}/jwks.json`;
  }

  function jwt(claims: { exp?: number; iat?: number; nbf?: number }): Promise<string> {
    const payload: JWTPayload = { scope: "mcp", ...claims };
    return new SignJWT(payload)
      .setProtectedHeader({ alg: "RS256", kid: "k1" })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject("user-1")
      .sign(keys.privateKey);
  }

  const now = () => Math.floor(Date.now() / 1000);
  const oauthEnv = (jwksUrl: string) => ({
    MCP_HTTP_BEARER_TOKENS: TOKEN,
    MCP_OAUTH_ISSUER: ISSUER,
    MCP_OAUTH_AUDIENCE: AUDIENCE,
    MCP_OAUTH_JWKS_URL: jwksUrl,
  });

  it("answers 503 with Retry-After, promptly, while the JWKS endpoint hangs, logging one error", async () => {
    const server = await start(["--sandbox", "--toolkits", "pager"], oauthEnv(await jwksServer(false)));
    const token = await jwt({ iat: now(), exp: now() + 300 });
    const timed = async () => {
      const started = performance.now();
      const answer = await send(server.url, { headers: { authorization: `Bearer ${token}` } });
      return { ...answer, ms: performance.now() - started };
    };
    const first = await timed();
    expect(first.status).toBe(503);
    expect(first.ms).toBeLessThan(4_500);
    expect(Number(first.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(first.body).error.message).toContain("JWKS");
    const second = await timed();
    expect(second.status).toBe(503);
    expect(second.ms).toBeLessThan(500);
    // Static tokens do not depend on the JWKS.
    expect((await send(server.url, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect(server.stderr().match(/JWKS unreachable/g)).toHaveLength(1);
  });

  it("refuses a JWT without exp and one issued in the future, saying what is wrong", async () => {
    const server = await start(["--sandbox", "--toolkits", "pager"], oauthEnv(await jwksServer(true)));
    const refusal = async (token: string) => {
      const answer = await send(server.url, { headers: { authorization: `Bearer ${token}` } });
      expect(answer.status).toBe(401);
      return answer.headers["www-authenticate"] ?? "";
    };
    expect(await refusal(await jwt({ iat: now() }))).toContain("it has no exp claim");
    expect(await refusal(await jwt({ iat: now() + 3_600, exp: now() + 7_200 }))).toContain(
      "issued in the future",
    );
    const skewed = await jwt({ iat: now() + 5, exp: now() + 300 });
    expect((await send(server.url, { headers: { authorization: `Bearer ${skewed}` } })).status).toBe(200);
  });

  it("tolerates the same 30 s of clock difference on exp, nbf and iat, and no more", async () => {
    const server = await start(["--sandbox", "--toolkits", "pager"], oauthEnv(await jwksServer(true)));
    const status = async (claims: { exp?: number; iat?: number; nbf?: number }) => {
      const token = await jwt({ iat: now() - 600, ...claims });
      return (await send(server.url, { headers: { authorization: `Bearer ${token}` } })).status;
    };
    expect(await status({ exp: now() - 10 })).toBe(200);
    expect(await status({ exp: now() - 60 })).toBe(401);
    expect(await status({ exp: now() + 300, nbf: now() + 10 })).toBe(200);
    expect(await status({ exp: now() + 300, nbf: now() + 60 })).toBe(401);
    expect(await status({ exp: now() + 300, iat: now() + 10 })).toBe(200);
    expect(await status({ exp: now() + 300, iat: now() + 60 })).toBe(401);
  });
});

describe("shutdown", () => {
  /** A stand-in PagerDuty answering after `delayMs`; records whether a request was aborted. */
  async function slowUpstream(delayMs: number) {
    const events: string[] = [];
    let arrived: () => void = () => {};
    const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
    const upstream = createServer((_req, res) => {
      arrived();
      const timer = setTimeout(() => {
        const incident = {
          id: "P1",
          incident_number: 1,
          title: "Slow",
          status: "triggered",
          urgency: "high",
        };
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ incident }));
      }, delayMs);
      res.on("close", () => {
        clearTimeout(timer);
        if (!res.writableFinished) events.push("aborted");
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    closers.push(
      () => upstream.closeAllConnections(),
      () => upstream.close(),
    );
    const { port } = upstream.address() as { port: number };
    return { url: `http://127.0.0.1:${port}`, events, requestArrived };
  }

  const call = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "Pager_GetIncident", arguments: { incident_id: "P1" } },
  });

  async function exitOf(server: RunningServer): Promise<{ code: number | null; ms: number }> {
    const started = performance.now();
    const code = await new Promise<number | null>((resolve) => server.child.once("exit", resolve));
    return { code, ms: performance.now() - started };
  }

  it("drains on SIGTERM: keep-alive clients get 503 with Connection: close, the call in flight answers, exit 0", async () => {
    const upstream = await slowUpstream(1_500);
    const server = await start(["--toolkits", "pager"], {
      PAGER_API_URL: upstream.url,
      PAGER_ACCESS_TOKEN: "token-for-drain-test",
    });
    const agents = Array.from({ length: 16 }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
    const callAgent = new Agent({ keepAlive: true });
    closers.push(() => {
      for (const agent of [...agents, callAgent]) agent.destroy();
    });
    const warmed = await Promise.all(
      agents.map((agent) => send(server.url, { path: "/healthz", method: "GET", agent })),
    );
    expect(warmed.map((answer) => answer.status)).toEqual(Array(16).fill(200));
    const inFlight = send(server.url, { body: call, agent: callAgent });
    await upstream.requestArrived;
    const exited = exitOf(server);
    server.child.kill("SIGTERM");
    await expect.poll(() => server.stderr()).toContain("shutting down");
    const refused = await Promise.all(agents.map((agent) => send(server.url, { agent })));
    for (const answer of refused) {
      expect(answer.status).toBe(503);
      expect(answer.headers.connection).toBe("close");
      expect(answer.reusedSocket).toBe(true);
    }
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(answer.headers.connection).toBe("close");
    expect(JSON.parse(answer.body).result.structuredContent.incident.id).toBe("P1");
    expect((await exited).code).toBe(0);
  });

  it("answers 503 to a call still running when --shutdown-grace-ms ends, aborts it and exits 0", async () => {
    const upstream = await slowUpstream(30_000);
    const server = await start(["--toolkits", "pager", "--shutdown-grace-ms", "1000"], {
      PAGER_API_URL: upstream.url,
      PAGER_ACCESS_TOKEN: "token-for-grace-test",
    });
    const inFlight = send(server.url, { body: call });
    await upstream.requestArrived;
    const exited = exitOf(server);
    server.child.kill("SIGTERM");
    const answer = await inFlight;
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.body).error.message).toContain("shut down before the request finished");
    const { code, ms } = await exited;
    expect(code).toBe(0);
    expect(ms).toBeLessThan(4_000);
    await expect.poll(() => upstream.events).toContain("aborted");
  });
});

describe("static bearer tokens", () => {
  const anyInterface = ["--transport", "http", "--host", "0.0.0.0", "--port", "0", "--sandbox"];

  it("refuses blank and short tokens on 0.0.0.0, saying how to make one", async () => {
    const blank = await runCli(anyInterface, { MCP_HTTP_BEARER_TOKENS: " , " });
    expect(blank.code).toBe(2);
    expect(blank.stderr).toContain("MCP_HTTP_BEARER_TOKENS has 2 blank entries");
    expect(blank.stderr).toContain("openssl rand -hex 32");
    const short = await runCli(anyInterface, { MCP_HTTP_BEARER_TOKENS: `${TOKEN},tiny-token-1` });
    expect(short.code).toBe(2);
    expect(short.stderr).toContain("1 token shorter than 32 characters");
    expect(short.stderr).toContain("openssl rand -hex 32");
    expect(short.stderr).not.toContain("tiny-token-1");
  });

  it("warns about them on loopback", async () => {
    const blank = await start(["--sandbox", "--toolkits", "pager"], { MCP_HTTP_BEARER_TOKENS: " , " });
    expect(blank.stderr()).toContain("blank entries");
    expect(blank.stderr()).toContain("The server runs without authentication");
    expect((await send(blank.url)).status).toBe(200);
    const short = await start(["--sandbox", "--toolkits", "pager"], {
      MCP_HTTP_BEARER_TOKENS: "tiny-token-1",
    });
    expect(short.stderr()).toContain("shorter than 32 characters");
    expect((await send(short.url)).status).toBe(401);
    expect((await send(short.url, { headers: { authorization: "Bearer tiny-token-1" } })).status).toBe(200);
  });
  it("refuses one token given under two names at start-up, on loopback too, without quoting it", async () => {
    const shared = await runCli(["--transport", "http", "--port", "0", "--sandbox"], {
      MCP_HTTP_BEARER_TOKENS: `alice:${TOKEN},bob:${TOKEN}`,
    });
    expect(shared.code).toBe(2);
    expect(shared.stderr).toContain("gives one token 2 times (alice, bob)");
    expect(shared.stderr).not.toContain(TOKEN);
  });

  it("with no authorization server, says a bearer token is required and serves no OAuth metadata", async () => {
    const server = await start(["--sandbox", "--toolkits", "pager"], { MCP_HTTP_BEARER_TOKENS: TOKEN });
    const missing = await send(server.url);
    expect(missing.status).toBe(401);
    expect(missing.headers["www-authenticate"]).not.toContain("resource_metadata");
    expect(JSON.parse(missing.body).error_description).toContain("A bearer token is required");
    const wrong = await send(server.url, { headers: { authorization: "Bearer wrong-token" } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers["www-authenticate"]).not.toContain("resource_metadata");
    const metadata = await send(server.url, {
      path: "/.well-known/oauth-protected-resource/mcp",
      method: "GET",
    });
    expect(metadata.status).toBe(404);
  });
});
