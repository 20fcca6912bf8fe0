import { escapeHtml } from "@toolkits/core";

/** Markup that is already safe to insert as is; everything else is escaped by `html`. */
export class Html {
  constructor(readonly markup: string) {}

  toString(): string {
    return this.markup;
  }
}

/**
 * A template of markup: each interpolated value is escaped unless it is `Html`; arrays are
 * concatenated the same way; `undefined`, `null` and `false` insert nothing (for optional parts).
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let markup = strings[0] ?? "";
  values.forEach((value, index) => {
    markup += fragment(value) + (strings[index + 1] ?? "");
  });
  return new Html(markup);
}

function fragment(value: unknown): string {
  if (value === undefined || value === null || value === false) return "";
  if (value instanceof Html) return value.markup;
  if (Array.isArray(value)) return value.map(fragment).join("");
  return escapeHtml(String(value));
}
