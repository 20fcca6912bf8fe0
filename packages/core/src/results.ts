/**
 * Drops `null` and `undefined` object fields, recursively, so results carry no API noise.
 * Array entries that are null or undefined are dropped too. Returns a new value.
 */
export function compact<T>(value: T): T {
  if (Array.isArray(value)) {
    return value.filter((item) => item !== null && item !== undefined).map(compact) as T;
  }
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      if (field !== null && field !== undefined) out[key] = compact(field);
    }
    return out as T;
  }
  return value;
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
const MAX_STRING_WHEN_CUT = 200;

/**
 * Caps a result's JSON size at `maxBytes`. When it is larger, items are removed from the end of
 * its largest array (repeatedly, up to the whole array) and then long strings are shortened;
 * the result gains `truncated: true` and `truncation: {field, omitted, note}` so the cut is never silent.
 */
export function capResult<T extends Record<string, unknown>>(
  result: T,
  maxBytes: number,
  hint: TruncationHint = defaultHint,
): T & { truncated?: true; truncation?: Truncation } {
  if (byteLength(result) <= maxBytes) return result;
  const marker = (field: string, omitted: number, kept: number) => ({
    truncated: true as const,
    truncation: {
      field,
      omitted,
      note: `Result exceeded ${maxBytes} bytes; ${omitted} item(s) of ${field} omitted. ${hint(field, kept)}`,
    },
  });
  const target = largestArray(result, "");
  if (target && target.items.length > 0) {
    const { path, items } = target;
    let low = 0;
    let high = items.length - 1;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      const candidate = {
        ...withArray(result, path, items.slice(0, mid)),
        ...marker(path, items.length - mid, mid),
      };
      if (byteLength(candidate) <= maxBytes) low = mid;
      else high = mid - 1;
    }
    const cut = { ...withArray(result, path, items.slice(0, low)), ...marker(path, items.length - low, low) };
    return byteLength(cut) <= maxBytes ? (cut as T) : shortenStrings(cut as T);
  }
  return shortenStrings({ ...result, ...marker("strings", 0, 0) });
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

function largestArray(value: unknown, path: string): { path: string; items: unknown[] } | undefined {
  if (Array.isArray(value)) return { path, items: value };
  if (!value || typeof value !== "object") return undefined;
  let best: { path: string; items: unknown[]; size: number } | undefined;
  for (const [key, field] of Object.entries(value)) {
    const found = largestArray(field, path ? `${path}.${key}` : key);
    if (!found) continue;
    const size = byteLength(found.items);
    if (!best || size > best.size) best = { ...found, size };
  }
  return best;
}

function withArray<T extends Record<string, unknown>>(result: T, path: string, items: unknown[]): T {
  const [head, ...rest] = path.split(".");
  if (head === undefined) return result;
  const field = result[head];
  const next = rest.length ? withArray(field as Record<string, unknown>, rest.join("."), items) : items;
  return { ...result, [head]: next };
}
