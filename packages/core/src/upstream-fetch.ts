import type { Input } from "ky";
import { ToolError } from "./errors.js";
import { followSignals } from "./signals.js";
import type { UpstreamExchange, UpstreamFetch } from "./upstream.js";
import {
  followable,
  mayRetryAnswer,
  NoAnswer,
  RetryableAnswer,
  type Sending,
  tooLarge,
} from "./upstream-errors.js";

// What core adds beneath ky, as the `fetch` ky sends with: what ky leaves to fetch and fetch gets
// wrong for us. fetch's own redirect following would replay a 307's body to any host and loop
// twenty times, and its body has no size limit.

/** Statuses that redirect when they carry a Location. */
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
/** Most bytes of an error answer read: its message is all that is used, whatever `maxBytes` allows. */
const ERROR_BODY_BYTES = 64_000;

/**
 * The `fetch` ky sends with: each attempt through the sending client's fetch (the host's),
 * following only the redirects that may be followed, its answer read whole within `maxBytes` into
 * `sending.text`, stopped by ky's timeout (the Request's signal) or the caller's cancellation. ky
 * hands it the exchange as its own option `sending` (ky passes options it does not know to its
 * fetch), and its `timeout` thereby covers the redirects and the whole body.
 * @throws ToolError for a refused redirect or a success answer over `maxBytes` (never retried);
 *   RetryableAnswer for an error answer the policy may ask again; NoAnswer when the attempt got no
 *   whole answer.
 */
export async function answeringFetch(input: Input, init?: RequestInit): Promise<Response> {
  const { sending } = init as { sending: Sending };
  const { exchange, client } = sending;
  // ky always sends a Request it built, whose signal is its timeout's.
  const request = input as Request;
  const stop = followSignals(request.signal, exchange.signal);
  sending.answered = false;
  try {
    const response = await follow(request, exchange, client.fetch, client.limits.maxRedirects, stop.signal);
    sending.answered = true;
    sending.text = await readAnswer(response, exchange, client.limits.maxBytes);
    if (!response.ok && mayRetryAnswer(response.status, exchange.idempotent))
      throw new RetryableAnswer(sending, response);
    return response;
  } catch (error) {
    if (error instanceof ToolError || error instanceof RetryableAnswer) throw error;
    throw new NoAnswer(sending, error);
  } finally {
    stop.release();
  }
}

/**
 * Sends `request` and follows its redirects: only for a request without a body, only within its
 * origin, at most `maxRedirects` times. Each hop names the exchange's budget to `send`.
 * @throws ToolError `upstream_error` for any other redirect; nothing is sent to its location.
 */
async function follow(
  request: Request,
  exchange: UpstreamExchange,
  send: UpstreamFetch,
  maxRedirects: number,
  signal: AbortSignal,
): Promise<Response> {
  const { budget } = exchange;
  const { headers } = request;
  let { url, method } = request;
  let response = await send(request, { signal, budget });
  for (let hops = 0; ; hops++) {
    const { status } = response;
    const location = REDIRECT_STATUSES.has(status) ? response.headers.get("location") : null;
    if (location === null) return response;
    discard(response.body);
    url = followable(exchange, { status, from: url, location, hops, maxRedirects }).href;
    // A 303 points at a result to read, whatever the method was (fetch does the same).
    if (status === 303 && method !== "HEAD") method = "GET";
    response = await send(url, { method, headers, signal, redirect: "manual", budget });
  }
}

/**
 * The answer's body as text, read as it arrives: a success answer up to `maxBytes`, an error
 * answer up to ERROR_BODY_BYTES (for its message).
 * @throws ToolError `upstream_error` for a success answer longer than `maxBytes`; the stream's own
 *   error when the body is cut off.
 */
async function readAnswer(response: Response, exchange: UpstreamExchange, maxBytes: number): Promise<string> {
  if (!response.ok) return (await readBody(response.body, Math.min(maxBytes, ERROR_BODY_BYTES))).text;
  const declared = Number(response.headers.get("content-length"));
  if (declared > maxBytes) {
    discard(response.body);
    throw tooLarge(exchange, maxBytes, declared);
  }
  const { text, complete } = await readBody(response.body, maxBytes);
  if (!complete) throw tooLarge(exchange, maxBytes);
  return text;
}

/**
 * Reads `body` as UTF-8 up to `maxBytes`. Past that the rest is cancelled unread (the connection
 * closes), so memory holds at most `maxBytes` of any answer.
 * @returns the text read, and whether that was the whole body.
 * @throws the stream's error when the body is cut off or the attempt aborted.
 */
async function readBody(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<{ text: string; complete: boolean }> {
  if (!body) return { text: "", complete: true };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let left = maxBytes;
  for (;;) {
    const { done, value } = await reader.read();
    // Decoded once at the end: Buffer's UTF-8 decoding is several times faster than a streaming TextDecoder's.
    if (done) return { text: Buffer.concat(chunks).toString("utf8"), complete: true };
    if (value.byteLength > left) {
      reader.cancel().catch(ignore);
      chunks.push(value.subarray(0, left));
      return { text: Buffer.concat(chunks).toString("utf8"), complete: false };
    }
    chunks.push(value);
    left -= value.byteLength;
  }
}

/** Cancels a body nobody will read, closing its connection. */
function discard(body: ReadableStream | null): void {
  body?.cancel().catch(ignore);
}

// A cancelled body's stream may reject for its own reasons; the answer is decided already.
const ignore = (): void => {};
