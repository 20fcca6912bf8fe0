// Sheet grid: a window of Sheets.GetSpreadsheet with column letters and row numbers, formatted
// values with the value as entered on hover, paging by calling the tool again, and a selection
// told to the model as an A1 range (never the cells' contents).
import { button, h } from "../ui/dom.js";
import { type Data, type Shell, startView } from "../ui/view.js";

interface Cell {
  value?: string | number | boolean;
  formatted?: string;
  note?: string;
}
interface Window {
  spreadsheet_id: string;
  sheet: { id: number; title: string; row_count: number; column_count: number };
  range?: string;
  rows: Record<string, Record<string, Cell>>;
  truncated?: boolean;
  next_start_row?: number;
  note?: string;
}
/** Text Sheets would show right-aligned: a number, possibly grouped, signed or a percentage. */
const NUMBER = /^[-+]?[\d,]*\.?\d+%?$/;

interface Bounds {
  top: number;
  left: number;
  bottom: number;
  right: number;
}

startView({
  name: "toolkits-grid",
  fullscreen: true,
  render: (shell, data) => draw(shell, data as unknown as Window),
});

/** A column's letters from its 1-based number, as Sheets names it (27 → AA). */
export function letters(column: number): string {
  let name = "";
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26))
    name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

function columnNumber(name: string): number {
  let number = 0;
  for (const char of name) number = number * 26 + char.charCodeAt(0) - 64;
  return number;
}

/** The bounds of an A1 range such as `'Summary'!A1:D20` (one cell when it names one). */
export function boundsOf(range: string): Bounds | undefined {
  const match = /!\$?([A-Z]+)\$?(\d+)(?::\$?([A-Z]+)\$?(\d+))?$/.exec(range);
  if (!match) return undefined;
  const [, left = "A", top = "1", right = left, bottom = top] = match;
  return { top: Number(top), left: columnNumber(left), bottom: Number(bottom), right: columnNumber(right) };
}

/** The sheet part of a range (`'Summary'`), as the result quotes it. */
const sheetOf = (range: string) => range.slice(0, range.lastIndexOf("!"));

function draw(shell: Shell, window: Window): void {
  const bounds = window.range ? boundsOf(window.range) : undefined;
  if (!window.range || !bounds) {
    shell.state("empty", window.note ?? "This sheet has no cells here.");
    return;
  }
  // A truncated window ends before its range does: show the rows it has.
  const bottom = window.truncated && window.next_start_row ? window.next_start_row - 1 : bounds.bottom;
  const shown = { ...bounds, bottom };
  const status = h(
    "p",
    { class: "muted status" },
    `${window.sheet.title}: rows ${shown.top}–${bottom} of ${window.sheet.row_count}`,
  );
  const table = grid(window, shown, (selection) => select(shell, window, selection, status));
  const pages = pager(shell, window, shown);
  shell.show(h("div", { class: "bounded" }, table), h("div", { class: "actions" }, ...pages, status));
}

function grid(window: Window, b: Bounds, onSelect: (selection: Bounds) => void): HTMLTableElement {
  const columns = Array.from({ length: b.right - b.left + 1 }, (_, index) => b.left + index);
  const head = h(
    "tr",
    {},
    h("th", { class: "corner" }),
    ...columns.map((column) => h("th", { class: "col" }, letters(column))),
  );
  const body: HTMLTableRowElement[] = [];
  for (let row = b.top; row <= b.bottom; row++) {
    const cells = window.rows[String(row)] ?? {};
    body.push(
      h(
        "tr",
        {},
        h("th", { class: "rownum" }, row),
        ...columns.map((column) => {
          const name = letters(column);
          const cell = cells[name];
          const shown = cell?.formatted ?? (cell?.value === undefined ? "" : String(cell.value));
          // The value as entered (a formula's text) on hover, when it differs from what is shown.
          const raw = cell?.value === undefined ? "" : String(cell.value);
          const title = [raw !== shown ? raw : "", cell?.note ? `Note: ${cell.note}` : ""]
            .filter(Boolean)
            .join("\n");
          const attrs = { "data-cell": `${name}${row}`, "data-row": String(row), "data-col": String(column) };
          // Numbers and percentages to the right, as Sheets shows them (a formula's too).
          return h("td", { class: NUMBER.test(shown) ? "num" : "", title, attrs }, shown);
        }),
      ),
    );
  }
  const table = h("table", { class: "grid" }, h("thead", {}, head), h("tbody", {}, ...body));
  selecting(table, onSelect);
  return table;
}

/** Click, shift-click or drag over cells: each finished selection goes to `onSelect`. */
function selecting(table: HTMLTableElement, onSelect: (selection: Bounds) => void): void {
  let anchor: { row: number; col: number } | undefined;
  let dragging = false;
  const at = (target: EventTarget | null) => {
    const cell = (target as Element | null)?.closest?.("td[data-cell]") as HTMLElement | null;
    return cell ? { row: Number(cell.dataset.row), col: Number(cell.dataset.col) } : undefined;
  };
  const mark = (to: { row: number; col: number }) => {
    if (!anchor) return;
    const s = {
      top: Math.min(anchor.row, to.row),
      bottom: Math.max(anchor.row, to.row),
      left: Math.min(anchor.col, to.col),
      right: Math.max(anchor.col, to.col),
    };
    for (const cell of table.querySelectorAll<HTMLElement>("td[data-cell]")) {
      const row = Number(cell.dataset.row);
      const col = Number(cell.dataset.col);
      cell.classList.toggle("selected", row >= s.top && row <= s.bottom && col >= s.left && col <= s.right);
    }
    return s;
  };
  let selection: Bounds | undefined;
  table.addEventListener("mousedown", (event) => {
    const cell = at(event.target);
    if (!cell) return;
    event.preventDefault();
    if (!event.shiftKey || !anchor) anchor = cell;
    dragging = true;
    selection = mark(cell);
  });
  table.addEventListener("mouseover", (event) => {
    const cell = dragging && at(event.target);
    if (cell) selection = mark(cell);
  });
  document.addEventListener("mouseup", () => {
    if (!dragging || !selection) return;
    dragging = false;
    onSelect(selection);
  });
}

function rangeText(s: Bounds): string {
  const start = `${letters(s.left)}${s.top}`;
  const end = `${letters(s.right)}${s.bottom}`;
  return start === end ? start : `${start}:${end}`;
}

function select(shell: Shell, window: Window, s: Bounds, status: HTMLElement): void {
  const range = `${sheetOf(window.range ?? "")}!${rangeText(s)}`;
  status.textContent = `Selected ${range}`;
  shell
    .tell(`In spreadsheet ${window.spreadsheet_id}, the user selected ${range} in the grid view.`)
    .catch(() => {});
}

/** Previous and next windows of the same size, each one more call of Sheets.GetSpreadsheet. */
function pager(shell: Shell, window: Window, b: Bounds): HTMLButtonElement[] {
  const size = b.bottom - b.top + 1;
  const go = (start: number) => async () => {
    shell.state("loading", `Loading rows from ${start}…`);
    try {
      const next = await shell.call("Sheets.GetSpreadsheet", {
        spreadsheet_id: window.spreadsheet_id,
        sheet_id_or_name: String(window.sheet.id),
        start_row: start,
        start_col: letters(b.left),
        max_rows: size,
        max_cols: b.right - b.left + 1,
      } satisfies Data);
      draw(shell, next as unknown as Window);
    } catch (error) {
      shell.state("error", (error as Error).message);
    }
  };
  const previous = button("Previous rows", go(Math.max(1, b.top - size)), {
    attrs: { "aria-label": "Previous rows" },
  });
  previous.disabled = b.top <= 1;
  const next = button("Next rows", go(b.bottom + 1), { attrs: { "aria-label": "Next rows" } });
  next.disabled = b.bottom >= window.sheet.row_count;
  return [previous, next];
}
