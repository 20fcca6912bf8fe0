import { Transform, type TransformCallback } from "node:stream";

/** A JSON-RPC request id. */
export type RequestId = string | number;

/** A line the guard did not pass: its size in bytes, and the id of the request it held, if readable. */
export interface OversizedLine {
  bytes: number;
  id?: RequestId;
}

const NEWLINE = 0x0a;
/** How much of an oversized line's start and end is kept to find its request id, in bytes. */
const HEAD_BYTES = 4_096;
const TAIL_BYTES = 1_024;

/**
 * Splits its input into lines and passes each on whole, holding at most `maxBytes` of a line.
 * A longer line is never buffered: it is counted and skipped up to its newline, keeping only its
 * first and last bytes, and `onOversized` hears of it with the request id read from them. The next
 * line passes as usual.
 */
export class LineGuard extends Transform {
  #held: Buffer[] = [];
  #heldBytes = 0;
  #skipping: { bytes: number; head: Buffer; tail: Buffer } | undefined;

  constructor(
    private readonly maxBytes: number,
    private readonly onOversized: (line: OversizedLine) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    for (let newline = chunk.indexOf(NEWLINE); newline !== -1; newline = chunk.indexOf(NEWLINE, start)) {
      this.#endLine(chunk, start, newline);
      start = newline + 1;
    }
    this.#take(chunk.subarray(start));
    done();
  }

  /** Ends the current line with `chunk` from `start` to its newline at `newline`. */
  #endLine(chunk: Buffer, start: number, newline: number): void {
    const startsHere = this.#heldBytes === 0;
    this.#take(chunk.subarray(start, newline));
    const skipped = this.#skipping;
    const held = this.#held;
    this.#skipping = undefined;
    this.#held = [];
    this.#heldBytes = 0;
    if (skipped) {
      const id = oversizedRequestId(skipped.head.toString("utf8"), skipped.tail.toString("utf8"));
      this.onOversized(id === undefined ? { bytes: skipped.bytes } : { bytes: skipped.bytes, id });
    } else if (startsHere) {
      // A line wholly inside this chunk passes without a copy.
      this.push(chunk.subarray(start, newline + 1));
    } else {
      this.push(Buffer.concat([...held, chunk.subarray(newline, newline + 1)]));
    }
  }

  /** Adds part of the current line: held while the line fits, else counted and skipped. */
  #take(piece: Buffer): void {
    if (!this.#skipping && this.#heldBytes + piece.length <= this.maxBytes) {
      this.#held.push(piece);
      this.#heldBytes += piece.length;
      return;
    }
    this.#skipping ??= {
      bytes: this.#heldBytes,
      head: firstBytes([...this.#held, piece], HEAD_BYTES),
      tail: lastBytes(this.#held, TAIL_BYTES),
    };
    this.#held = [];
    this.#heldBytes = 0;
    this.#skipping.bytes += piece.length;
    this.#skipping.tail = lastBytes([this.#skipping.tail, piece], TAIL_BYTES);
  }
}

function firstBytes(buffers: readonly Buffer[], count: number): Buffer {
  const kept: Buffer[] = [];
  let length = 0;
  for (const buffer of buffers) {
    if (length >= count) break;
    kept.push(buffer.subarray(0, count - length));
    length += kept.at(-1)?.length ?? 0;
  }
  return Buffer.concat(kept);
}

function lastBytes(buffers: readonly Buffer[], count: number): Buffer {
  const kept: Buffer[] = [];
  let length = 0;
  for (let i = buffers.length - 1; i >= 0 && length < count; i--) {
    const buffer = buffers[i] as Buffer;
    kept.unshift(buffer.subarray(Math.max(0, buffer.length - (count - length))));
    length += kept[0]?.length ?? 0;
  }
  return Buffer.concat(kept);
}

/**
 * The id of the request an oversized line holds, from its first and last bytes: a top-level `id`
 * member read from the start, else one that closes the object at the end (where the SDK's own
 * clients put it). Undefined for a notification, a response (`result` or `error` seen), or when
 * neither end shows an id.
 */
export function oversizedRequestId(head: string, tail: string): RequestId | undefined {
  const members = topLevelMembers(head);
  if (members.has("result") || members.has("error")) return undefined;
  const id = members.get("id") ?? idAtEnd(tail);
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

const STRING = /"(?:[^"\\]|\\.)*"/y;
const SCALAR = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
const NESTED_TOKEN = /"(?:[^"\\]|\\.)*"|[{[]|[}\]]|[^"{}[\]]+/y;
const ID_AT_END = /[{,]\s*"id"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")\s*\}\s*$/;

/**
 * The members of the JSON object `text` starts with, as far as `text` goes: each name with its
 * value when a string, number, boolean or null, and `undefined` for an object or array (skipped)
 * or a value the text ends inside. Stops where the text ends or stops being JSON.
 */
function topLevelMembers(text: string): Map<string, unknown> {
  const members = new Map<string, unknown>();
  let at = skipSpace(text, 0);
  if (text[at] !== "{") return members;
  at = skipSpace(text, at + 1);
  while (text[at] === '"') {
    const name = match(STRING, text, at);
    if (!name) break;
    at = skipSpace(text, name.end);
    if (text[at] !== ":") break;
    const value = readValue(text, skipSpace(text, at + 1));
    // A member whose value runs past the text still shows what the message is (a `result`).
    members.set(JSON.parse(name.text), value?.value);
    if (!value) break;
    at = skipSpace(text, value.end);
    if (text[at] !== ",") break;
    at = skipSpace(text, at + 1);
  }
  return members;
}

function readValue(text: string, at: number): { value: unknown; end: number } | undefined {
  const found = match(STRING, text, at) ?? match(SCALAR, text, at);
  if (found) return { value: JSON.parse(found.text), end: found.end };
  const end = text[at] === "{" || text[at] === "[" ? skipNested(text, at) : undefined;
  return end === undefined ? undefined : { value: undefined, end };
}

/** The index just past the object or array starting at `at`; undefined if `text` ends first. */
function skipNested(text: string, at: number): number | undefined {
  let depth = 0;
  for (let next = at; ; ) {
    const token = match(NESTED_TOKEN, text, next);
    if (!token) return undefined;
    if (token.text === "{" || token.text === "[") depth++;
    else if (token.text === "}" || token.text === "]") depth--;
    if (depth === 0) return token.end;
    next = token.end;
  }
}

function idAtEnd(tail: string): unknown {
  const found = ID_AT_END.exec(tail)?.[1];
  return found === undefined ? undefined : JSON.parse(found);
}

function match(pattern: RegExp, text: string, at: number): { text: string; end: number } | undefined {
  pattern.lastIndex = at;
  const found = pattern.exec(text);
  return found ? { text: found[0], end: pattern.lastIndex } : undefined;
}

function skipSpace(text: string, at: number): number {
  let next = at;
  while (next < text.length && /\s/.test(text[next] as string)) next++;
  return next;
}
