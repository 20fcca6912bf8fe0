import { jsonText } from "./results.js";

/**
 * JSON data with the tool names in its strings rewritten by `rewrite` (a `ToolNames.rewrite`), and
 * its JSON text: `value` itself when nothing changed (no copy, no parse), else a parsed copy of the
 * rewritten text.
 */
export function rewriteJson<T>(value: T, rewrite: (text: string) => string): { value: T; text: string } {
  const text = jsonText(value);
  const rewritten = rewrite(text);
  return rewritten === text ? { value, text } : { value: JSON.parse(rewritten) as T, text: rewritten };
}
