import type { IncomingMessage, ServerResponse } from "node:http";

/** Answers with a JSON-RPC error object (id null), as MCP's HTTP transport does for refusals. */
export function rpcError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
  code = -32000,
): void {
  json(res, status, { jsonrpc: "2.0", error: { code, message }, id: null }, headers);
}

/** Answers with `body` as JSON (a string is sent as it is). */
export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  // The length lets a client that is still sending read the whole answer before the connection ends.
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** Headers about the connection, not the answer: Node writes its own (`Connection: close` included). */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding"]);

/** Is told a response written: its status, content type and whole body (telemetry's `answeredHttp`). */
export type ResponseObserver = (status: number, contentType: string | null, body: string) => void;

/**
 * Writes a web-standard response, streaming an event stream as it comes; a finished exchange is
 * left alone. `observe`, when given, is told what was written once it is (an event stream's
 * chunks are kept for it meanwhile).
 */
export async function sendResponse(
  res: ServerResponse,
  response: Response,
  observe?: ResponseObserver,
): Promise<void> {
  if (res.headersSent || res.destroyed) return void response.body?.cancel().catch(() => {});
  const headers = [...response.headers].filter(([name]) => !HOP_BY_HOP.has(name));
  res.writeHead(response.status, Object.fromEntries(headers));
  const type = response.headers.get("content-type");
  if (!response.body) {
    res.end();
    return observe?.(response.status, type, "");
  }
  if (!type?.includes("text/event-stream")) {
    const text = await response.text();
    res.end(text);
    return observe?.(response.status, type, text);
  }
  const kept: Uint8Array[] | undefined = observe && [];
  for await (const chunk of response.body) {
    if (res.destroyed) break;
    res.write(chunk);
    kept?.push(chunk);
  }
  res.end();
  if (kept) observe?.(response.status, type, Buffer.concat(kept).toString("utf8"));
}

/** The request headers the SDK's handlers read: content negotiation and MCP's own. */
const SDK_HEADERS = /^(accept|content-type|mcp-.*|last-event-id)$/;

/** The web-standard request the SDK's handler takes, without a body (it gets the parsed one). */
export function webRequest(req: IncomingMessage, path: string, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string" && SDK_HEADERS.test(name)) headers.set(name, value);
  }
  return new Request(`http://${req.headers.host ?? "localhost"}${path}`, {
    method: req.method,
    headers,
    signal,
  });
}
