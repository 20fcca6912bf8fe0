import type { IncomingMessage, ServerResponse } from "node:http";
import { readBody } from "../../pages.js";
import { rpcError } from "../respond.js";

const INVALID_REQUEST = -32600;

/**
 * Until the body has been read, an answer closes the connection: to reuse it, Node would first
 * read and discard the rest of the body, however large. Returns what keeps it open once read.
 */
export function closeUntilRead(req: IncomingMessage, res: ServerResponse): () => void {
  const keepAlive = res.shouldKeepAlive;
  const hasBody = req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"]) > 0;
  if (hasBody) res.shouldKeepAlive = false;
  return () => {
    res.shouldKeepAlive = keepAlive;
  };
}

/**
 * Reads a POST's JSON body of at most `maxBytes`: 415 for another content type, 413 when larger
 * (unread when its declared length says so), 400 for bad JSON or a batch reusing an id. Resolves
 * to the parsed body (undefined for other methods), or `REFUSED` once it has answered.
 */
export async function readJsonBody(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
): Promise<unknown | typeof REFUSED> {
  if (req.method !== "POST") return undefined;
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
  const repeated = repeatedRequestId(body);
  if (repeated === undefined) return body;
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
function repeatedRequestId(body: unknown): string | number | undefined {
  if (!Array.isArray(body)) return undefined;
  const seen = new Set<string>();
  for (const message of body) {
    const { id, method } = (typeof message === "object" && message !== null ? message : {}) as {
      id?: unknown;
      method?: unknown;
    };
    if (typeof method !== "string" || (typeof id !== "string" && typeof id !== "number")) continue;
    // 1 and "1" are different ids.
    const key = `${typeof id} ${id}`;
    if (seen.has(key)) return id;
    seen.add(key);
  }
  return undefined;
}
