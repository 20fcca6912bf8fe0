/**
 * Google's partial-response field masks (`fields=a,b/c,d(e,f)`), as the fake applies them.
 * A mask maps a field name to `true` (keep it whole) or to the mask of its sub-fields.
 */
export type FieldMask = Map<string, FieldMask | true>;

/**
 * Parses a field mask.
 * @throws Error with Google's wording for an unbalanced or empty selection.
 */
export function parseFieldMask(text: string): FieldMask {
  let at = 0;
  const fail = (): never => {
    throw new Error(`Invalid field selection ${text}`);
  };
  const name = (): string => {
    const match = /^[A-Za-z0-9_$.*]+/.exec(text.slice(at));
    if (!match) return fail();
    at += match[0].length;
    return match[0];
  };
  const list = (): FieldMask => {
    const mask: FieldMask = new Map();
    for (;;) {
      const path = [name()];
      while (text[at] === "/") {
        at++;
        path.push(name());
      }
      let leaf: FieldMask | true = true;
      if (text[at] === "(") {
        at++;
        leaf = list();
        if (text[at] !== ")") fail();
        at++;
      }
      merge(mask, path, leaf);
      if (text[at] !== ",") return mask;
      at++;
    }
  };
  const mask = list();
  if (at !== text.length) fail();
  return mask;
}

function merge(mask: FieldMask, path: string[], leaf: FieldMask | true): void {
  const [head, ...rest] = path;
  if (head === undefined) return;
  const existing = mask.get(head);
  if (!rest.length) {
    mask.set(head, existing instanceof Map && leaf instanceof Map ? new Map([...existing, ...leaf]) : leaf);
    return;
  }
  if (existing === true) return;
  const child = existing ?? new Map();
  mask.set(head, child);
  merge(child, rest, leaf);
}

/**
 * Keeps only the masked fields of `value`; arrays are masked element by element. A mask names
 * fields, so only own ones count: `fields=constructor` selects nothing, as at Google.
 */
export function applyFieldMask(value: unknown, mask: FieldMask): unknown {
  if (Array.isArray(value)) return value.map((item) => applyFieldMask(item, mask));
  if (value === null || typeof value !== "object") return value;
  if (mask.has("*")) return value;
  const record = value as Record<string, unknown>;
  const present = [...mask].filter(([key]) => Object.hasOwn(record, key) && record[key] !== undefined);
  return Object.fromEntries(
    present.map(([key, sub]) => [key, sub === true ? record[key] : applyFieldMask(record[key], sub)]),
  );
}

/** Whether the mask selects `name` anywhere (e.g. `data` under `sheets`). */
export function maskMentions(mask: FieldMask, name: string): boolean {
  for (const [key, sub] of mask) if (key === name || (sub !== true && maskMentions(sub, name))) return true;
  return false;
}
