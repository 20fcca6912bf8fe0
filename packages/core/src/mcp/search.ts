import MiniSearch from "minisearch";

/** The parts of a served tool entry the search reads. */
export interface SearchableTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { properties?: Record<string, unknown> };
  [key: string]: unknown;
}

/** One tool as indexed: `id` is its position in the name-sorted entries, the rest are plain text. */
interface IndexedTool {
  id: number;
  name: string;
  title: string;
  description: string;
  parameters: string;
}

/**
 * How much a match in each field counts (BM25 score multipliers). A tool's own name and title
 * say what it does; its prose and parameters also mention neighbouring things.
 */
const FIELD_BOOST = { name: 3, title: 2, description: 1, parameters: 0.5 };

/** Words of a request that say nothing about which tool is meant (single letters are dropped too). */
const STOP_WORDS = new Set(["an", "and", "at", "the", "to", "of", "for", "in", "into", "is", "me", "my"]);

/**
 * Query words the tool texts say differently, applied to queries only. Kept short on purpose:
 * each one fixes a query that missed without it. "send" is what people say for "trigger a
 * broadcast"; "oncall" is "on call" written as one word; what "happened" on an incident, its
 * "timeline", is in the log entries.
 */
const SYNONYMS: Record<string, string[]> = {
  send: ["send", "trigger"],
  oncall: ["on", "call"],
  happened: ["log"],
  timeline: ["timeline", "log"],
};

/** A mention of another tool inside prose, e.g. `Pager.ListTeams` or `GetExportInfo`. */
const TOOL_MENTION = /\b(?:\p{Lu}\w*[._])?\p{Lu}\p{Ll}+\p{Lu}\w*/gu;

/** Splits text at spaces, punctuation, `_` and CamelCase humps: `Pager.ListOnCalls` → Pager, List, On, Calls. */
function words(text: string): string[] {
  return text.match(/\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{N}+/gu) ?? [];
}

/** The index term of a word: lowercase, singular; none for a stop word or a letter ("B2", "account's"). */
function normalise(word: string): string | null {
  const lower = word.toLowerCase();
  return lower.length < 2 || STOP_WORDS.has(lower) ? null : singular(lower);
}

/** The terms a query word looks for: its synonyms' terms, or its own. */
function queryTerms(word: string): string[] {
  const lower = word.toLowerCase();
  // Own names only: a query word like "constructor" must not find Object's members.
  return (Object.hasOwn(SYNONYMS, lower) ? (SYNONYMS[lower] ?? [word]) : [word]).flatMap(
    (synonym) => normalise(synonym) ?? [],
  );
}

/** Crude singular: incidents → incident, policies → policy, addresses → address, people → person. */
function singular(word: string): string {
  if (word === "people") return "person";
  if (word.length <= 3 || word.endsWith("ss") || word.endsWith("us")) return word;
  if (word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (/(ss|sh|ch|x)es$/.test(word)) return word.slice(0, -2);
  return word.endsWith("s") ? word.slice(0, -1) : word;
}

/** Prose without mentions of other tools: "use Pager.ListTeams" must not make this tool match "team". */
function withoutToolMentions(text: string): string {
  return text.replace(TOOL_MENTION, " ");
}

/** The text of a JSON Schema's parameters: each name and its `description`, if any. */
function parameterText(properties: Record<string, unknown> = {}): string {
  return Object.entries(properties)
    .map(([name, schema]) => {
      const description = (schema as { description?: unknown } | null)?.description;
      return typeof description === "string" ? `${name} ${withoutToolMentions(description)}` : name;
    })
    .join("\n");
}

/**
 * Builds an index once; `search` returns up to `limit` entries (the same objects passed in), best first.
 * Any word of the query may match (more matched words rank higher); words of 4+ letters also match
 * longer words they start, and words of 5+ letters match with one typo (two from 8 letters on).
 * The index is built in name order and ties go to the smaller name, so results never depend on
 * the order of `entries`.
 */
export function createToolSearch<T extends SearchableTool>(
  entries: readonly T[],
): { search(query: string, limit: number): T[] } {
  // Code-unit order (not locale order), so that ids, and with them ties, follow names on every machine.
  const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const index = new MiniSearch<IndexedTool>({
    fields: Object.keys(FIELD_BOOST),
    tokenize: words,
    processTerm: normalise,
    searchOptions: {
      processTerm: queryTerms,
      boost: FIELD_BOOST,
      prefix: (term) => term.length >= 4,
      fuzzy: (term) => (term.length >= 8 ? 2 : term.length >= 5 ? 1 : false),
    },
  });
  index.addAll(
    sorted.map((entry, id) => ({
      id,
      name: entry.name,
      title: entry.title ?? "",
      description: withoutToolMentions(entry.description ?? ""),
      parameters: parameterText(entry.inputSchema.properties),
    })),
  );

  return {
    search(query, limit) {
      if (query.trim() === "") return [];
      return index
        .search(query)
        .sort((a, b) => b.score - a.score || a.id - b.id)
        .slice(0, Math.max(0, Math.floor(limit)))
        .map((result) => sorted[result.id] as T);
    },
  };
}
