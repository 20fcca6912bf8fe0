// The HTTP side of the load benchmark: servers that log the URL they listen on, and concurrent
// keep-alive clients posting tools/call to one of them in a loop, in either protocol revision.
import { spawn } from "node:child_process";
import { Agent, request } from "node:http";

/** Starts `node …argv` with `env`; resolves with the child and the URL it logs on stderr as `"url":"…"`. */
export async function startServer(argv, env) {
  const child = spawn(process.execPath, argv, { stdio: ["ignore", "ignore", "pipe"], env });
  const url = await new Promise((resolve, reject) => {
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const match = /"url":"([^"]+)"/.exec(stderr);
      if (match) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
  return { child, url: new URL(url) };
}

// Every server gets the same headers: the SDK's transport answers 406 unless the client accepts
// both JSON and SSE; the bare handler ignores them.
const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
// A 2026-07-28 call carries its revision and the client's capabilities in every request, and
// names its method and tool in headers too.
const MODERN = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
};

/**
 * The headers and body of JSON-RPC request `id`, a tools/call of `name` with `args` in revision
 * `protocol` ("2025-11-25" or "2026-07-28").
 */
function toolsCall({ name, args, protocol }, id) {
  const modern = protocol === MODERN;
  return {
    headers: modern
      ? { ...HEADERS, "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": name }
      : HEADERS,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: args, ...(modern ? { _meta: META } : {}) },
    }),
  };
}

/** The JSON-RPC answer in a response: the body, or the last SSE event's data (the SDK's transport streams). */
function rpcAnswer({ sse, text }) {
  if (!sse) return JSON.parse(text);
  const data = text.split("\n").findLast((line) => line.startsWith("data:"));
  return JSON.parse(data?.slice("data:".length) ?? "null");
}

/**
 * `clients` concurrent clients on keep-alive connections. `call(url, spec, id)` resolves with
 * `{ ok, ms, answer }`, ok when the answer is a tool result that is not an error; `drive(url,
 * spec, { until, maxCalls, onResult })` runs every client's call loop until `until` (ms on the
 * performance clock) or `maxCalls` calls in all, handing each result (a failed request as
 * `{ ok: false, ms: 0 }`) to `onResult`.
 */
export function loadClients(clients) {
  // node:http rather than fetch: the client shares the machine's cores with the server, and fetch
  // costs it several times more CPU per request.
  const agent = new Agent({ keepAlive: true, maxSockets: clients });

  const post = (url, { headers, body }) =>
    new Promise((resolve, reject) => {
      const options = {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers,
      };
      const req = request(options, (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode,
            sse: String(res.headers["content-type"]).startsWith("text/event-stream"),
            text: Buffer.concat(chunks).toString(),
          }),
        );
      });
      req.on("error", reject);
      req.end(body);
    });

  async function call(url, spec, id) {
    const started = performance.now();
    const response = await post(url, toolsCall(spec, id));
    const answer = rpcAnswer(response);
    const ok = response.status === 200 && Boolean(answer?.result) && !answer.result.isError;
    return { ok, ms: performance.now() - started, answer };
  }

  async function drive(url, spec, { until, maxCalls, onResult }) {
    let issued = 0;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (performance.now() < until && issued < maxCalls) {
          issued++;
          onResult(await call(url, spec, issued).catch(() => ({ ok: false, ms: 0 })));
        }
      }),
    );
  }

  return { call, drive, close: () => agent.destroy() };
}
