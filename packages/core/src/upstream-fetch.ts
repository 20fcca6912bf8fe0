import type { Input } from "ky";
import { ToolError } from "./errors.js";
import { followSignals } from "./signals.js";
import type { UpstreamExchange, UpstreamInit } from "./upstream.js";
import { followable, mayRetryAnswer, RetryableAttempt, type Sending, tooLarge } from "./upstream-errors.js";

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
 *   RetryableAttempt for an error answer the policy may ask again, or when the attempt got no
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
    const response = await follow(request, sending, stop.signal);
    sending.answered = true;
    sending.text = await readAnswer(response, exchange, client.limits.maxBytes);
    if (!response.ok && mayRetryAnswer(response.status, exchange.idempotent))
      throw new RetryableAttempt(sending, response);
    return response;
  } catch (error) {
    if (error instanceof ToolError || error instanceof RetryableAttempt) throw error;
    throw new RetryableAttempt(sending, undefined, error);
  } finally {
    stop.release();
  }
}

/**
 * Sends ky's `request` (its URL and method; the headers and body are the exchange's) through the
 * sending client's fetch and follows its redirects: only for a
 * request without a body, only within its origin, at most `maxRedirects` times. Each hop names the
 * exchange's budget to that fetch.
 * @throws ToolError `upstream_error` for any other redirect; nothing is sent to its location.
 */
async function follow(request: Request, sending: Sending, signal: AbortSignal): Promise<Response> {
  const { exchange, client } = sending;
  const { method } = request;
  const { headers, body, budget } = exchange;
  const init: UpstreamInit = { method, headers, body, signal, redirect: "manual", budget };
  for (let url = request.url, hops = 0; ; hops++) {
    // A redirect's location is the upstream's: the template no longer names its path.
    const template = hops === 0 ? exchange.template : undefined;
    init.about = { target: exchange.target, template, resendCount: sending.sent++ };
    const response = await client.fetch(url, init);
    const { status } = response;
    const location = REDIRECT_STATUSES.has(status) ? response.headers.get("location") : null;
    if (location === null) return response;
    discard(response.body);
    const { maxRedirects } = client.limits;
    url = followable(exchange, { status, from: url, location, hops, maxRedirects }).href;
    // A 303 points at a result to read, whatever the method was (fetch does the same).
    if (status === 303 && method !== "HEAD") init.method = "GET";
  }
}

/**
 * The answer's body as UTF-8 text, read as it arrives: a success answer up to `maxBytes`, an error
 * answer up to ERROR_BODY_BYTES (for its message). Past its limit the rest is cancelled unread (the
 * connection closes), so memory holds at most `maxBytes` of any answer.
 * @throws ToolError `upstream_error` for a success answer longer than `maxBytes`; the stream's own
 *   error when the body is cut off.
 */
async function readAnswer(response: Response, exchange: UpstreamExchange, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get("content-length"));
  if (response.ok && declared > maxBytes) {
    discard(response.body);
    throw tooLarge(exchange, maxBytes, declared);
  }
  const reader = response.body?.getReader();
  const chunks: Uint8Array[] = [];
  for (let left = response.ok ? maxBytes : Math.min(maxBytes, ERROR_BODY_BYTES); reader; ) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value.byteLength > left) {
      reader.cancel().catch(ignore);
      if (response.ok) throw tooLarge(exchange, maxBytes);
      chunks.push(value.subarray(0, left));
      break;
    }
    chunks.push(value);
    left -= value.byteLength;
  }
  // Decoded once at the end: Buffer's UTF-8 decoding is several times faster than a streaming
  // TextDecoder's. A lone chunk (most answers) is decoded where it lies, not copied first.
  const [only] = chunks;
  const bytes = chunks.length === 1 && only ? only : Buffer.concat(chunks);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
}

/** Cancels a body nobody will read, closing its connection. */
function discard(body: ReadableStream | null): void {
  body?.cancel().catch(ignore);
}

// A cancelled body's stream may reject for its own reasons; the answer is decided already.
const ignore = (): void => {};
