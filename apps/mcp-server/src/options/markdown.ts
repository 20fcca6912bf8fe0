import { GROUPS, type Group, type Setting, settingsOf, shownDefault } from "./setting.js";
import { DOCUMENTED_VARIABLES, SETTINGS } from "./table.js";

/** One table row's facts; absent ones leave their cell empty. */
interface Row {
  flag?: string;
  env: string;
  shown?: string;
  help: string;
  secret?: boolean;
}

const rowOf = (setting: Setting<unknown>): Row => ({ ...setting, shown: shownDefault(setting) });

const rowsOf = (group: Group): Row[] => [
  ...settingsOf(SETTINGS)
    .filter((setting) => setting.group === group)
    .map(rowOf),
  ...(DOCUMENTED_VARIABLES[group] ?? []),
];

const code = (text: string | undefined): string => (text === undefined ? "" : `\`${text}\``);
/** Help text in a table cell: `|` would end the cell, and `<token>` would read as an HTML tag. */
const cell = (text: string): string => text.replace(/[|<]/g, (character) => `\\${character}`);

/**
 * The README's Markdown table of `groups`' settings, one table per group (each under its group's
 * name when there are several): flag, variable, default and meaning, leaving out a column no row
 * fills. scripts/docs.mjs writes it between the README's `options:start` and `options:end` markers.
 * @throws Error for a group the table does not have (a typo in a marker).
 */
export function settingsTables(groups: readonly Group[]): string {
  const unknown = groups.filter((group) => !GROUPS.includes(group));
  if (unknown.length)
    throw new Error(`No settings group ${unknown.join(", ")}; the groups: ${GROUPS.join(", ")}.`);
  return groups
    .map((group) => {
      const table = markdownTable(rowsOf(group));
      return groups.length > 1 ? `**${group}**\n\n${table}` : table;
    })
    .join("\n\n");
}

function markdownTable(rows: Row[]): string {
  const columns: [string, (row: Row) => string][] = [
    ["Option", (row) => code(row.flag)],
    ["Variable", (row) => code(row.env)],
    ["Default", (row) => code(row.shown)],
    ["Meaning", (row) => cell(row.secret ? `${row.help} (secret)` : row.help)],
  ];
  const used = columns.filter(([, value]) => rows.some((row) => value(row) !== ""));
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [
    line(used.map(([title]) => title)),
    `|${used.map(() => "---").join("|")}|`,
    ...rows.map((row) => line(used.map(([, value]) => value(row)))),
  ].join("\n");
}
