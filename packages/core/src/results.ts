/**
 * Drops `null` and `undefined` object fields, recursively, so results carry no API noise.
 * Array entries that are null or undefined are dropped too. Returns `value` itself where nothing is
 * dropped, else a copy of just the objects and arrays that change (the rest shared, not copied). Keys are data (an upstream may name a field `__proto__` or
 * `toString`), so they are copied as own properties, never assigned.
 */
export function compact<T>(value: T): T {
  if (Array.isArray(value)) {
    let kept: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      const compacted = isPresent(item) ? compact(item) : DROPPED;
      if (!kept) {
        if (compacted === item) continue;
        kept = value.slice(0, index);
      }
      if (compacted !== DROPPED) kept.push(compacted);
    }
    return (kept ?? value) as T;
  }
  if (!isRecord(value)) return value;
  // Nothing is copied until a field changes: most results have nothing to drop.
  let kept: Record<string, unknown> | undefined;
  const keys = Object.keys(value);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    const field = value[key];
    const compacted = isPresent(field) ? compact(field) : DROPPED;
    if (!kept) {
      if (compacted === field) continue;
      kept = {};
      for (const earlier of keys.slice(0, index)) keep(kept, earlier, value[earlier]);
    }
    if (compacted !== DROPPED) keep(kept, key, compacted);
  }
  return (kept ?? value) as T;
}

/**
 * Sets `key` on `record` as an own data property: assigning `__proto__` would set the prototype,
 * every other key assigns as it defines.
 */
function keep(record: Record<string, unknown>, key: string, field: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(record, key, {
      value: field,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else record[key] = field;
}

/** Marks a field compact drops. */
const DROPPED = Symbol("dropped");

const isPresent = (value: unknown): boolean => value !== null && value !== undefined;

/** A plain JSON-like object: its prototype is Object.prototype or null (class instances are left alone). */
function isRecord(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** The marker a cut result carries. */
export interface Truncation {
  /** Where items were removed, as a dotted path (e.g. `incidents`), or `strings`. */
  field: string;
  omitted: number;
  note: string;
}

/** How to describe the rest: receives the cut field and the number of items kept there. */
export type TruncationHint = (field: string, kept: number) => string;

const defaultHint: TruncationHint = () =>
  "Narrow the request (a smaller limit or page size, or more filters) to see the rest.";

const byteLength = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/** JSON texts already made of result objects, so a result is stringified once on its way out. */
const texts = new WeakMap<object, string>();

/**
 * The JSON text of `value`, made once per object: a result is measured against the size cap,
 * written as text content and sent, and each would stringify it again. Only for values nobody
 * changes afterwards, as results are.
 */
export function jsonText(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  let text = texts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    texts.set(value, text);
  }
  return text;
}

/** Records `text` as the JSON text of `value` (one built by hand from parts already stringified). */
export function knownJsonText<T extends object>(value: T, text: string): T {
  texts.set(value, text);
  return value;
}
const MAX_STRING_WHEN_CUT = 200;

/**
 * Where an array sits, as the keys leading to it. Keys are data and may hold dots, so a path is
 * never a dotted string except in the marker a model reads.
 */
type KeyPath = readonly string[];

interface Cut {
  path: KeyPath;
  omitted: number;
  kept: number;
}

/**
 * Caps a result's JSON size at `maxBytes`. When it is larger, items are removed from the end of its
 * largest array, then of the next largest while it is still too big, and long strings are
 * shortened last; the result gains `truncated: true` and `truncation: {field, omitted, note}`
 * (fields cut, comma-separated; items omitted in all) so the cut is never silent. When the cut
 * list is a limit/offset page (`offset` and `more` at the top), the page says there is more and
 * where to continue: `more: true`, `next_offset` just past the last item kept.
 */
export function capResult<T extends Record<string, unknown>>(
  result: T,
  maxBytes: number,
  hint: TruncationHint = defaultHint,
): T & { truncated?: true; truncation?: Truncation } {
  if (Buffer.byteLength(jsonText(result)) <= maxBytes) return result;
  const cuts: Cut[] = [];
  const marked = (value: Record<string, unknown>) => ({
    ...value,
    ...continuation(value, cuts),
    ...truncationMarker(cuts, maxBytes, hint),
  });
  let current: Record<string, unknown> = result;
  while (byteLength(marked(current)) > maxBytes) {
    const target = largestArray(current, []);
    if (!target || target.items.length === 0) break;
    const { path, items } = target;
    const fits = (kept: number) => {
      const trial = [...cuts, { path, omitted: items.length - kept, kept }];
      return (
        byteLength({
          ...withArray(current, path, items.slice(0, kept)),
          ...truncationMarker(trial, maxBytes, hint),
        }) <= maxBytes
      );
    };
    const kept = largestPassing(items.length - 1, fits);
    cuts.push({ path, omitted: items.length - kept, kept });
    current = withArray(current, path, items.slice(0, kept));
  }
  const out = marked(current) as T & { truncated: true; truncation: Truncation };
  return byteLength(out) <= maxBytes ? out : shortenStrings(out);
}

/** For a cut limit/offset page: more past the last item kept, and the offset to continue at. */
function continuation(
  page: Record<string, unknown>,
  cuts: readonly Cut[],
): { more: true; next_offset: number } | undefined {
  const [key, ...deeper] = cuts[0]?.path ?? [];
  const items = key !== undefined && !deeper.length ? page[key] : undefined;
  const { offset } = page;
  if (!Array.isArray(items) || typeof offset !== "number" || typeof page.more !== "boolean") return undefined;
  return { more: true, next_offset: offset + items.length };
}

function truncationMarker(
  cuts: readonly Cut[],
  maxBytes: number,
  hint: TruncationHint,
): { truncated: true; truncation: Truncation } {
  const [first] = cuts;
  const field = cuts.length ? cuts.map((cut) => cut.path.join(".")).join(", ") : "strings";
  const omitted = cuts.reduce((sum, cut) => sum + cut.omitted, 0);
  return {
    truncated: true,
    truncation: {
      field,
      omitted,
      note: `Result exceeded ${maxBytes} bytes; ${omitted} item(s) of ${field} omitted. ${hint(first?.path.join(".") ?? field, first?.kept ?? 0)}`,
    },
  };
}

/** The largest n in 0..max for which `passes(n)` holds, assuming it holds up to some point; 0 if none. */
function largestPassing(max: number, passes: (n: number) => boolean): number {
  let low = 0;
  let high = max;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (passes(mid)) low = mid;
    else high = mid - 1;
  }
  return low;
}

function shortenStrings<T>(value: T): T {
  if (typeof value === "string" && value.length > MAX_STRING_WHEN_CUT) {
    return `${value.slice(0, MAX_STRING_WHEN_CUT)}…` as T;
  }
  if (Array.isArray(value)) return value.map(shortenStrings) as T;
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shortenStrings(v)])) as T;
  }
  return value;
}

function largestArray(value: unknown, path: KeyPath): { path: KeyPath; items: unknown[] } | undefined {
  if (Array.isArray(value)) return { path, items: value };
  if (!value || typeof value !== "object") return undefined;
  let best: { path: KeyPath; items: unknown[]; size: number } | undefined;
  for (const [key, field] of Object.entries(value)) {
    const found = largestArray(field, [...path, key]);
    if (!found) continue;
    const size = byteLength(found.items);
    if (!best || size > best.size) best = { ...found, size };
  }
  return best;
}

/** A copy of `result` with the array at `path` replaced; a computed key defines an own property, even `__proto__`. */
function withArray<T extends Record<string, unknown>>(result: T, path: KeyPath, items: unknown[]): T {
  const [head, ...rest] = path;
  if (head === undefined) return result;
  const next = rest.length ? withArray(result[head] as Record<string, unknown>, rest, items) : items;
  return { ...result, [head]: next };
}
