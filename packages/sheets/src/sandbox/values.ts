// How the fake turns written values into cells and cells into what Sheets shows, for what the
// tools need: USER_ENTERED parsing, a few aggregate formulas and default number formatting.

/** A cell's entered value, as Sheets' ExtendedValue. */
export type Entered =
  | { numberValue: number }
  | { stringValue: string }
  | { boolValue: boolean }
  | { formulaValue: string };

export interface FakeCell {
  entered?: Entered;
  /** Set for values typed as percentages ("75%"). */
  percent?: boolean;
  note?: string;
}

/** A computed value: a number, text, boolean, or a Sheets error like `#NAME?`. */
export type Computed = number | string | boolean | { error: string };

/** Reads another cell's computed value (row and column 0-based); `undefined` for an empty cell. */
export type CellLookup = (row: number, column: number, depth: number) => Computed | undefined;

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const PERCENT = /^([+-]?(\d+\.?\d*|\.\d+))%$/;

/**
 * A value as Sheets stores it under USER_ENTERED (or RAW when `raw`): `=…` a formula, numeric text
 * a number, `75%` the number 0.75 shown as a percentage, TRUE/FALSE booleans, `'…` forced text.
 * Returns `undefined` for "" (which clears the cell).
 */
export function userEntered(value: unknown, raw = false): Omit<FakeCell, "note"> | undefined {
  if (typeof value === "boolean") return { entered: { boolValue: value } };
  if (typeof value === "number") return { entered: { numberValue: value } };
  const text = value === null || value === undefined ? "" : String(value);
  if (text === "") return undefined;
  if (raw) return { entered: { stringValue: text } };
  if (text.startsWith("'")) return { entered: { stringValue: text.slice(1) } };
  if (text.startsWith("=")) return { entered: { formulaValue: text } };
  if (NUMBER.test(text.trim())) return { entered: { numberValue: Number(text) } };
  const percent = PERCENT.exec(text.trim());
  if (percent) return { entered: { numberValue: Number(percent[1]) / 100 }, percent: true };
  if (/^(true|false)$/i.test(text.trim()))
    return { entered: { boolValue: text.trim().toUpperCase() === "TRUE" } };
  return { entered: { stringValue: text } };
}

const MAX_DEPTH = 50;
// A map: the function name comes from a cell's formula, which is user data.
const AGGREGATES = new Map<string, (numbers: number[]) => number>([
  ["SUM", (n) => n.reduce((a, b) => a + b, 0)],
  ["AVERAGE", (n) => (n.length ? n.reduce((a, b) => a + b, 0) / n.length : Number.NaN)],
  ["MIN", (n) => (n.length ? Math.min(...n) : 0)],
  ["MAX", (n) => (n.length ? Math.max(...n) : 0)],
  ["COUNT", (n) => n.length],
]);

/** The value a cell shows after evaluation. */
export function computed(cell: FakeCell, lookup: CellLookup, depth = 0): Computed | undefined {
  const entered = cell.entered;
  if (!entered) return undefined;
  if ("numberValue" in entered) return entered.numberValue;
  if ("boolValue" in entered) return entered.boolValue;
  if ("stringValue" in entered) return entered.stringValue;
  if (depth > MAX_DEPTH) return { error: "#REF!" };
  return evaluate(entered.formulaValue.slice(1).trim(), lookup, depth + 1);
}

/** Supports `=NUMBER`, `=A1` and `=SUM|AVERAGE|MIN|MAX|COUNT(A1:B9)`; anything else is `#NAME?`. */
function evaluate(formula: string, lookup: CellLookup, depth: number): Computed {
  if (NUMBER.test(formula)) return Number(formula);
  const single = cellRef(formula);
  if (single) return lookup(single.row, single.column, depth) ?? 0;
  const call = /^([A-Z]+)\(([A-Z]+\d+)(?::([A-Z]+\d+))?\)$/i.exec(formula);
  const aggregate = call?.[1] ? AGGREGATES.get(call[1].toUpperCase()) : undefined;
  const from = cellRef(call?.[2] ?? "");
  const to = cellRef(call?.[3] ?? call?.[2] ?? "");
  if (!aggregate || !from || !to) return { error: "#NAME?" };
  const numbers: number[] = [];
  for (let row = Math.min(from.row, to.row); row <= Math.max(from.row, to.row); row++) {
    for (
      let column = Math.min(from.column, to.column);
      column <= Math.max(from.column, to.column);
      column++
    ) {
      const value = lookup(row, column, depth);
      if (typeof value === "object") return value;
      if (typeof value === "number") numbers.push(value);
    }
  }
  const result = aggregate(numbers);
  return Number.isNaN(result) ? { error: "#DIV/0!" } : result;
}

/** `B3` → 0-based {row: 2, column: 1}. */
export function cellRef(text: string): { row: number; column: number } | undefined {
  const match = /^([A-Z]{1,3})([1-9]\d*)$/i.exec(text.trim());
  if (!match?.[1] || !match[2]) return undefined;
  let column = 0;
  for (const char of match[1].toUpperCase()) column = column * 26 + (char.charCodeAt(0) - 64);
  return { row: Number(match[2]) - 1, column: column - 1 };
}

/** What the Sheets UI shows for a computed value in the automatic format. */
export function formatted(value: Computed, percent = false): string {
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if (typeof value === "string") return value;
  if (typeof value === "object") return value.error;
  const number = (n: number) => String(Number(n.toPrecision(15)));
  return percent ? `${number(value * 100)}%` : number(value);
}
