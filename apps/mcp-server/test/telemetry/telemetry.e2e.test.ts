// OpenTelemetry end to end: the built server exporting over OTLP/HTTP (JSON) to a receiver in the
// test, called by both SDK generations' clients that send W3C trace context in `params._meta`, over
// stdio and Streamable HTTP, on the fast path (a plain call) and the SDK's (a call asking for
// progress). Each call's server span joins the client's trace, its upstream request is its child,
// the duration metric counts it, and nothing the test holds secret, nor any e-mail address, is in
// anything exported.
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sandbox } from "@toolkits/pager/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectHttp, connectStdio, type Generation, type TestClient } from "../clients.js";
import { CLI, type RunningServer, runCli, startHttpServer } from "../spawn.js";
import { type Collector, type ExportedSpan, exportingTo, otlpCollector } from "./collector.js";

const PAGER_TOKEN = `pager-${randomBytes(24).toString("hex")}`;
const BEARER = randomBytes(32).toString("hex");
const PERSON_BEARER = randomBytes(32).toString("hex");
const STORE_KEY = randomBytes(32).toString("base64");
const EMAIL = "avery.quinn@acme.example";
const PERSON = "alice@acme.example";
const REVISION: Record<Generation, string> = { v1: "2025-11-25", v2: "2026-07-28" };
const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

/** A PagerDuty stand-in on loopback: one incident, whose title holds an e-mail address. */
async function pagerDuty(): Promise<{ url: string; incidentId: string; close(): Promise<void> }> {
  const incident = { ...sandbox().account.incidents[0], title: `Disk full on db-1, reported by ${EMAIL}` };
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const found = path === `/incidents/${incident.id}`;
    res.writeHead(found ? 200 : 404, { "content-type": "application/json" });
    res.end(JSON.stringify(found ? { incident } : { error: { message: "Not Found", code: 2100 } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    incidentId: incident.id as string,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A fresh W3C trace context: the client span a call's server span must join. */
function clientContext() {
  const traceId = randomBytes(16).toString("hex");
  const spanId = randomBytes(8).toString("hex");
  return {
    traceId,
    spanId,
    meta: { traceparent: `00-${traceId}-${spanId}-01`, tracestate: "rojo=00f067aa0ba902b7" },
  };
}

const HTTP_CONTEXT = clientContext();

/** Everything the test holds that must never be exported. */
const NEVER = [PAGER_TOKEN, BEARER, PERSON_BEARER, STORE_KEY, EMAIL, PERSON, "@acme.example"];

function expectNothingSecret(collector: Collector): void {
  const exported = collector.bodies.join("\n");
  expect(exported.length).toBeGreaterThan(0);
  for (const secret of NEVER) expect(exported).not.toContain(secret);
}

let collector: Collector;
let upstream: Awaited<ReturnType<typeof pagerDuty>>;

beforeAll(async () => {
  [collector, upstream] = await Promise.all([otlpCollector(), pagerDuty()]);
});
afterAll(async () => {
  await Promise.all([collector?.close(), upstream?.close()]);
});

const serverEnv = () => ({
  ...exportingTo(collector),
  PAGER_API_URL: upstream.url,
  PAGER_ACCESS_TOKEN: PAGER_TOKEN,
});

/** The server span of the call made in `context`'s trace, once exported. */
const serverSpanIn = (context: { traceId: string }) =>
  collector.until(() =>
    collector.spans().find((span) => span.traceId === context.traceId && span.kind === SERVER),
  );

const childrenOf = (span: ExportedSpan) =>
  collector.spans().filter((child) => child.parentSpanId === span.spanId);

/** A point of `metric` counting at least one, whose attributes include `attributes`, once exported. */
const exportedPoint = (metric: string, attributes: Record<string, string | number>) =>
  collector.until(() =>
    collector
      .points()
      .find(
        (point) =>
          point.metric === metric &&
          point.count >= 1 &&
          Object.entries(attributes).every(([key, value]) => point.attributes[key] === value),
      ),
  );

const TRANSPORTS = ["stdio", "http"] as const;
const PATHS = [
  { path: "fast path", progress: false },
  { path: "SDK path (progress asked)", progress: true },
] as const;

describe.each(TRANSPORTS)("OpenTelemetry over %s", (transport) => {
  const clients = new Map<Generation, TestClient>();
  let http: RunningServer | undefined;

  beforeAll(async () => {
    if (transport === "http") {
      http = await startHttpServer(["--toolkits", "pager"], {
        ...serverEnv(),
        MCP_HTTP_BEARER_TOKENS: BEARER,
      });
      // Every HTTP request also carries a trace context of its own, which the server links.
      const headers = { authorization: `Bearer ${BEARER}`, traceparent: HTTP_CONTEXT.meta.traceparent };
      for (const generation of ["v1", "v2"] as const)
        clients.set(generation, await connectHttp(generation, http.url, headers));
    } else {
      for (const generation of ["v1", "v2"] as const)
        clients.set(generation, await connectStdio(generation, ["--toolkits", "pager"], serverEnv()));
    }
  });
  afterAll(async () => {
    for (const client of clients.values()) await client.close();
    await http?.stop();
  });

  describe.each(["v1", "v2"] as const)("SDK %s client", (generation) => {
    it.each(PATHS)(
      "a tools/call on the $path joins the client's trace, with its upstream request as a child",
      async ({ progress }) => {
        const client = clients.get(generation) as TestClient;
        const context = clientContext();
        const answer = await client.call(
          "Pager_GetIncident",
          { incident_id: upstream.incidentId },
          { meta: context.meta, ...(progress && { onprogress: () => {} }) },
        );
        expect(answer.isError).toBe(false);
        expect(answer.text).toContain(EMAIL);

        const span = await serverSpanIn(context);
        expect(span).toMatchObject({
          name: "tools/call Pager.GetIncident",
          parentSpanId: context.spanId,
          status: { code: 0 },
          attributes: {
            "mcp.method.name": "tools/call",
            "gen_ai.tool.name": "Pager.GetIncident",
            "gen_ai.operation.name": "execute_tool",
            "mcp.protocol.version": REVISION[generation],
            "network.transport": transport === "stdio" ? "pipe" : "tcp",
          },
        });
        expect(span.attributes["jsonrpc.request.id"]).toMatch(/^\S+$/);
        expect(span.attributes["error.type"]).toBeUndefined();
        if (transport === "http") {
          expect(span.attributes).toMatchObject({
            "network.protocol.name": "http",
            "network.protocol.version": "1.1",
            "client.address": "127.0.0.1",
          });
          // The HTTP request's own context is linked, not the parent (the conventions' note).
          expect(span.links).toContainEqual({ traceId: HTTP_CONTEXT.traceId, spanId: HTTP_CONTEXT.spanId });
        }

        const upstreamSpan = await collector.until(() =>
          childrenOf(span).find((child) => child.kind === CLIENT),
        );
        expect(upstreamSpan).toMatchObject({
          traceId: context.traceId,
          name: "GET /incidents/{id}",
          attributes: {
            "http.request.method": "GET",
            "url.template": "/incidents/{id}",
            "server.address": "127.0.0.1",
            "server.port": Number(new URL(upstream.url).port),
            "http.response.status_code": 200,
          },
        });
        // The URL itself, with the incident's id, is never recorded.
        expect(JSON.stringify(upstreamSpan)).not.toContain(upstream.incidentId);

        await exportedPoint("mcp.server.operation.duration", {
          "gen_ai.tool.name": "Pager.GetIncident",
          "mcp.protocol.version": REVISION[generation],
          "network.transport": transport === "stdio" ? "pipe" : "tcp",
        });
        await exportedPoint("http.client.request.duration", {
          "url.template": "/incidents/{id}",
          "http.response.status_code": 200,
        });
      },
    );
  });

  it("records a tool error as error.type tool_error, and the upstream's 404 on its request", async () => {
    const context = clientContext();
    const answer = await (clients.get("v1") as TestClient).call(
      "Pager_GetIncident",
      { incident_id: "PNOSUCH" },
      { meta: context.meta },
    );
    expect(answer.isError).toBe(true);
    const span = await serverSpanIn(context);
    expect(span.attributes["error.type"]).toBe("tool_error");
    expect(span.status.code).toBe(ERROR);
    const request = await collector.until(() => childrenOf(span).find((child) => child.kind === CLIENT));
    expect(request.attributes).toMatchObject({ "http.response.status_code": 404, "error.type": "404" });
    await exportedPoint("mcp.server.operation.duration", {
      "error.type": "tool_error",
      "network.transport": transport === "stdio" ? "pipe" : "tcp",
    });
  });

  it("exports none of the test's tokens, keys or e-mail addresses", () => {
    expectNothingSecret(collector);
  });
});

describe("OpenTelemetry settings the server cannot honour", () => {
  it("stop the start with exit code 2, naming the variable", async () => {
    const { code, stderr } = await runCli(["--toolkits", "pager"], {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(/OTEL_EXPORTER_OTLP_PROTOCOL may be http\/protobuf or http\/json/);
  });
});

describe("OpenTelemetry over stdio, messages written back to back", () => {
  it("keeps each SDK-path call's upstream request in its own trace, whatever message the SDK began with", async () => {
    // The SDK's stdio entry may run a request's handler in the context of the connection's first
    // message: initialize and a call asking for progress are written together, as a client may.
    const context = clientContext();
    const child = spawn(process.execPath, [CLI, "--toolkits", "pager"], {
      env: { PATH: process.env.PATH, ...serverEnv() },
      stdio: ["pipe", "pipe", "ignore"],
    });
    const initialize = {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "e2e", version: "0" },
    };
    const call = {
      name: "Pager.GetIncident",
      arguments: { incident_id: upstream.incidentId },
      _meta: { ...context.meta, progressToken: "p1" },
    };
    const lines = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: initialize },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: call },
    ];
    child.stdin.write(lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
    try {
      const span = await serverSpanIn(context);
      const request = await collector.until(() =>
        collector.spans().find((s) => s.name === "GET /incidents/{id}" && s.traceId === context.traceId),
      );
      expect(request.parentSpanId).toBe(span.spanId);
    } finally {
      child.stdin.end();
      await new Promise((resolve) => child.once("close", resolve));
    }
  });
});

describe("OpenTelemetry per user: the store's operations, the person by a pseudonym, trace ids in the log", () => {
  let server: RunningServer;
  let client: TestClient;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "telemetry-store-"));
    const args = ["--toolkits", "pager", "--log-level", "info", "--credentials", "per-user"];
    server = await startHttpServer([...args, "--store", `file://${join(dir, "store.json")}`], {
      ...serverEnv(),
      MCP_STORE_KEY: STORE_KEY,
      MCP_HTTP_BEARER_TOKENS: `${PERSON}:${PERSON_BEARER}`,
    });
    client = await connectHttp("v1", server.url, { authorization: `Bearer ${PERSON_BEARER}` });
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("names the caller by the log's pseudonymous id and records each store operation as a child span", async () => {
    const context = clientContext();
    // Nobody connected PagerDuty for this person: the call asks them to (a URL elicitation).
    await client
      .call("Pager_GetIncident", { incident_id: upstream.incidentId }, { meta: context.meta })
      .catch(() => {});
    const span = await serverSpanIn(context);
    const pseudonym = createHash("sha256").update(`token:${PERSON}`).digest("base64url").slice(0, 12);
    expect(span.attributes["enduser.pseudo.id"]).toBe(pseudonym);
    const stored = await collector.until(() => {
      const children = childrenOf(span).filter((child) => child.attributes["db.system.name"] === "file");
      return children.length ? children : undefined;
    });
    for (const child of stored) {
      expect(child.kind).toBe(CLIENT);
      expect(child.attributes["db.operation.name"]).toMatch(/^[a-z_]+$/);
      expect(String(child.attributes["db.collection.name"] ?? "")).toMatch(/^tk(:[A-Za-z-]+)*$/);
    }
    await exportedPoint("db.client.operation.duration", { "db.system.name": "file" });
    // The call's audit line carries its trace and span.
    const lines = server
      .stderr()
      .split("\n")
      .filter((line) => line.includes('"trace_id"'))
      .map((line) => JSON.parse(line) as { trace_id: string; span_id: string; msg: string });
    expect(lines.find((line) => line.trace_id === context.traceId)).toMatchObject({ span_id: span.spanId });
  });

  it("exports none of the test's tokens, keys or e-mail addresses", () => {
    expectNothingSecret(collector);
  });
});
