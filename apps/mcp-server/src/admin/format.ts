/**
 * Text tables for `toolkits-mcp admin`: a header row in capitals, then one row a record, columns
 * padded with two spaces between them; the last column is not padded. Empty cells show `-`.
 */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const cells = [
    headers.map((header) => header.toUpperCase()),
    ...rows.map((row) => row.map((cell) => cell || "-")),
  ];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => [...(row[column] ?? "")].length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join("  ")
      .trimEnd();
  return `${cells.map(line).join("\n")}\n`;
}

/** Label-value lines: the labels padded to one width. */
export function fields(pairs: readonly (readonly [string, string])[]): string {
  const width = Math.max(...pairs.map(([label]) => label.length));
  return `${pairs.map(([label, value]) => `${`${label}:`.padEnd(width + 2)}${value || "-"}`).join("\n")}\n`;
}

/** A moment for a table: `2026-01-05 14:03 UTC` (times are kept to the minute); empty for none. */
export const when = (ms: number | undefined): string =>
  ms === undefined ? "" : `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** A moment for `--json`: an ISO 8601 string, or null for none. */
export const iso = (ms: number | undefined): string | null =>
  ms === undefined ? null : new Date(ms).toISOString();

/** `--json` output: the value as indented JSON, one document. */
export const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
