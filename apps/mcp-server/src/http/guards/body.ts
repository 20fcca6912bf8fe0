import type { IncomingMessage, ServerResponse } from "node:http";
import type { ToolNames } from "@toolkits/core";
import { type InboundBody, type MessageId, readInbound } from "@toolkits/core/mcp";
import { readBody } from "../../pages.js";
import { rpcError } from "../respond.js";

const INVALID_REQUEST = -32600;

/** How long a refused request's body may still be read and dropped after the answer, in milliseconds. */
const LINGER_MS = 5_000;
/** How long a client may pause in sending it before the connection ends anyway, in milliseconds. */
const LINGER_IDLE_MS = 1_000;
/** How much of a refused request's body is read and dropped after the answer, at most, in bytes. */
const LINGER_BYTES = 32 * 1024 * 1024;

/**
 * Until the body has been read, an answer closes the connection: to reuse it, Node would first
 * read and discard the rest of the body, however large. And it closes lingering: the answer is
 * written at once, but while the client goes on sending, the connection ends only once it has
 * finished (within LINGER_MS and LINGER_BYTES), since closing a socket with unread data resets it
 * and the client would see the reset rather than the answer. A client that sends nothing more for
 * LINGER_IDLE_MS is closed on at once. Returns what keeps the connection open once the body is read.
 */
export function closeUntilRead(req: IncomingMessage, res: ServerResponse): () => void {
  const hasBody = req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"]) > 0;
  if (!hasBody) return () => {};
  const keepAlive = res.shouldKeepAlive;
  res.shouldKeepAlive = false;
  let read = false;
  const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
  res.end = ((chunk?: unknown) => {
    if (read || req.complete) return end(chunk);
    if (chunk !== undefined && typeof chunk !== "function") res.write(chunk as string | Buffer);
    linger(req, () => end());
    return res;
  }) as ServerResponse["end"];
  return () => {
    read = true;
    res.shouldKeepAlive = keepAlive;
  };
}

/** Reads and drops the rest of `req`'s body, then calls `done`: at its end, or at the linger bounds. */
function linger(req: IncomingMessage, done: () => void): void {
  let dropped = 0;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    clearTimeout(deadline);
    clearTimeout(idle);
    req.off("data", count);
    done();
  };
  const count = (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES) return finish();
    idle.refresh();
  };
  const deadline = setTimeout(finish, LINGER_MS);
  const idle = setTimeout(finish, LINGER_IDLE_MS);
  req.on("data", count).once("end", finish).once("error", finish).resume();
}

/**
 * Reads a POST's JSON body of at most `maxBytes` and its messages, once (core's `readInbound`, with
 * `names` making called tools' names canonical): 415 for another content type, 413 when larger
 * (unread when its declared length says so), 400 for bad JSON or a batch reusing an id. Resolves
 * to the body read (an empty one for other methods), or `REFUSED` once it has answered.
 */
export async function readJsonBody(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
  names?: ToolNames,
): Promise<InboundBody | typeof REFUSED> {
  if (req.method !== "POST") return readInbound(undefined);
  const type = String(req.headers["content-type"] ?? "").toLowerCase();
  if (!type.startsWith("application/json")) return refuse(res, 415, "Content-Type must be application/json.");
  const raw = await readBody(req, maxBytes);
  if (!raw) return refuse(res, 413, "Request body too large.");
  let body: unknown;
  try {
    body = JSON.parse(raw.toString("utf8"));
  } catch {
    return refuse(res, 400, "Request body is not valid JSON.");
  }
  const inbound = readInbound(body, names);
  const repeated = repeatedRequestId(inbound);
  if (repeated === undefined) return inbound;
  const message = `Two requests in this batch have the id ${JSON.stringify(repeated)}; each needs its own.`;
  return refuse(res, 400, message, INVALID_REQUEST);
}

/** What `readJsonBody` resolves to once it has answered the request itself. */
export const REFUSED: unique symbol = Symbol("refused");

function refuse(res: ServerResponse, status: number, message: string, code?: number): typeof REFUSED {
  rpcError(res, status, message, {}, code);
  return REFUSED;
}

/**
 * The first id two requests of a JSON-RPC batch share, if any: the SDK answers requests by id,
 * so it would send only one of the two answers.
 */
function repeatedRequestId(inbound: InboundBody): MessageId | undefined {
  if (inbound.single) return undefined;
  const seen = new Set<string>();
  for (const { id, method } of inbound.messages) {
    if (method === undefined || id === undefined) continue;
    // 1 and "1" are different ids.
    const key = `${typeof id} ${id}`;
    if (seen.has(key)) return id;
    seen.add(key);
  }
  return undefined;
}
