import type { AnyToolDefinition } from "../tool.js";

/** Shortest description that can say what a tool does and what its result holds. */
export const MIN_DESCRIPTION_LENGTH = 40;

/** Result fields every paged or capped tool shares; naming them says nothing about the tool. */
const SHARED_FIELDS = new Set([
  "more",
  "next_offset",
  "next_page_token",
  "next_page_parameter",
  "truncated",
  "truncation",
  "ok",
]);

/**
 * What is wrong with how `tool` describes itself to a model: a description under 40 characters, or
 * one that names none of its result's own top-level fields (`incidents`, `spreadsheet_id`, …;
 * plural or singular, with or without the underscores). Empty when it passes.
 */
export function descriptionProblems(tool: AnyToolDefinition): string[] {
  const problems: string[] = [];
  const { description } = tool;
  if (description.length < MIN_DESCRIPTION_LENGTH) {
    problems.push(
      `${tool.name}: its description has ${description.length} characters; say what the result holds`,
    );
  }
  const fields = Object.keys(tool.output.shape).filter((field) => !SHARED_FIELDS.has(field));
  const words = new Set(
    description
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .map(singular),
  );
  const joined = description.toLowerCase().replace(/[^a-z0-9]+/g, "");
  const named = (field: string) =>
    field.split("_").every((part) => words.has(singular(part))) ||
    joined.includes(singular(field.replace(/_/g, "")));
  if (fields.length && !fields.some(named)) {
    problems.push(`${tool.name}: its description names none of its result's fields (${fields.join(", ")})`);
  }
  return problems;
}

function singular(word: string): string {
  if (word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (/(ss|x|ch|sh)es$/.test(word)) return word.slice(0, -2);
  return word.endsWith("s") && !word.endsWith("ss") ? word.slice(0, -1) : word;
}
