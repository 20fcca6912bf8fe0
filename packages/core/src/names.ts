/**
 * How tool names are shown to clients and models:
 * - `underscore`: `Pager_ListIncidents`, matching `^[a-zA-Z0-9_-]{1,64}$`, the only form Claude
 *   Desktop, claude.ai and OpenAI-style function calling accept;
 * - `dotted`: the canonical names as the definitions write them, `Pager.ListIncidents`.
 */
export type ToolNameForm = "underscore" | "dotted";

/** Every `ToolNameForm`, for validating a setting (e.g. a command-line option). */
export const TOOL_NAME_FORMS: readonly ToolNameForm[] = ["underscore", "dotted"];

const NOT_FUNCTION_SAFE = /[^a-zA-Z0-9_-]/g;
const MAX_FUNCTION_NAME = 64;

/** `name` in `form`: `Pager.ListIncidents` → `Pager_ListIncidents` for `underscore`. */
export function servedName(name: string, form: ToolNameForm): string {
  return form === "dotted" ? name : name.replace(NOT_FUNCTION_SAFE, "_").slice(0, MAX_FUNCTION_NAME);
}

/** A set of tool names in one served form, with the way back and a rewriter for text. */
export interface ToolNames {
  readonly form: ToolNameForm;
  /** The served form of a canonical name (unknown names are converted all the same). */
  served(canonical: string): string;
  /** The canonical name for a name in either form; undefined when it names no known tool. */
  canonical(name: string): string | undefined;
  /**
   * `text` with every mention of a known tool in its served form, so what a model reads only ever
   * names tools the way it can call them. Returns `text` itself when nothing changes.
   */
  rewrite(text: string): string;
}

/**
 * Names for `canonicalNames` served in `form`.
 * @throws Error when two tools would be served under the same name.
 */
export function toolNames(canonicalNames: readonly string[], form: ToolNameForm): ToolNames {
  const toServed = new Map<string, string>();
  const toCanonical = new Map<string, string>();
  for (const name of canonicalNames) {
    const served = servedName(name, form);
    const clash = toCanonical.get(served);
    if (clash !== undefined && clash !== name) {
      throw new Error(`Tools ${clash} and ${name} would both be served as ${served}.`);
    }
    toServed.set(name, served);
    toCanonical.set(served, name);
    toCanonical.set(name, name);
  }
  // Either form is accepted whatever the setting (clients and adapters may send underscores).
  for (const name of canonicalNames) {
    const alias = servedName(name, "underscore");
    if (!toCanonical.has(alias)) toCanonical.set(alias, name);
  }
  const renamed = [...toServed].filter(([name, served]) => name !== served).map(([name]) => name);
  const mention = renamed.length ? mentionPattern(renamed) : undefined;
  return {
    form,
    served: (canonical) => toServed.get(canonical) ?? servedName(canonical, form),
    canonical: (name) => toCanonical.get(name),
    rewrite: (text) => (mention ? text.replace(mention, (name) => toServed.get(name) ?? name) : text),
  };
}

/** Matches any of `names` as a whole word: not inside a longer name or a dotted path. */
function mentionPattern(names: readonly string[]): RegExp {
  // Longest first, so `Pager.GetTeam` never shadows a `Pager.GetTeamMembers`.
  const alternatives = [...names]
    .sort((a, b) => b.length - a.length)
    .map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`(?<![\\w.])(?:${alternatives.join("|")})(?![\\w])`, "g");
}
