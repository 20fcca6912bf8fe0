import type { ProviderId } from "./providers.js";

/**
 * What a label may be: lowercase letters and digits, then up to 39 more of those, `.`, `_` or `-`.
 * Safe in a URL path segment without escaping, in a store key and in a file, and distinct from the
 * connector grammar's separators (`/`, `+`, `:`, `,`, `@`, `=`).
 */
const LABEL = /^[a-z0-9][a-z0-9._-]{0,39}$/;

/** The label of an account nothing identifies (a v1 token file's, a connection without an account name). */
export const DEFAULT_LABEL = "default";

/** Whether `text` is a valid account label. */
export const isLabel = (text: string): boolean => LABEL.test(text);

/** What a label looks like, for messages and help. */
export const LABEL_FORM =
  "lowercase letters, digits, '.', '_' and '-', starting with a letter or digit, at most 40";

/**
 * `text` as a label: lowercased, every run of other characters made one `-`, trimmed of leading
 * separators and cut to 40 characters; `undefined` when nothing is left.
 */
export function labelFrom(text: string): string | undefined {
  const cleaned = text
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[._-]+/, "")
    .slice(0, 40)
    .replace(/[._-]+$/, "");
  return cleaned && isLabel(cleaned) ? cleaned : undefined;
}

/**
 * The labels an account named `account` is offered, best first, for a new connection saved without
 * a label: an e-mail address offers its local part (`alice` for alice@example.com), then the whole
 * address (`alice-example.com`); any other name (a PagerDuty subdomain, a Customer.io workspace with
 * its region: `acme-us`) offers itself; no name offers `default`. The store takes the first not held
 * by another account, then the last with `-2`, `-3`, ….
 */
export function labelCandidates(account: string | undefined): string[] {
  const at = account?.indexOf("@") ?? -1;
  const names = account && at > 0 ? [account.slice(0, at), account] : [account ?? ""];
  const labels = names.map(labelFrom).filter((label): label is string => label !== undefined);
  return labels.length ? [...new Set(labels)] : [DEFAULT_LABEL];
}

/**
 * The label for a new connection of `account`: the one it already holds (the same account connected
 * again keeps its label), else the first of its candidates no other account holds, else the last
 * numbered. `held` maps each existing label to its account name.
 */
export function labelFor(account: string | undefined, held: ReadonlyMap<string, string | undefined>): string {
  for (const [label, name] of held) if (name === account) return label;
  const candidates = labelCandidates(account);
  const free = candidates.find((label) => !held.has(label));
  if (free) return free;
  const last = candidates.at(-1) ?? DEFAULT_LABEL;
  for (let n = 2; ; n++) {
    const numbered = `${last.slice(0, 40 - String(n).length - 1)}-${n}`;
    if (!held.has(numbered)) return numbered;
  }
}

/**
 * Which account of each provider a request or the server chose (`pager` → `eu`); a provider not
 * named uses its default account.
 */
export type AccountChoice = Readonly<Partial<Record<ProviderId, string>>>;

/** No choice: every provider's default account. */
export const NO_CHOICE: AccountChoice = Object.freeze({});

/** `base` with `over`'s choices in place of its own for the providers `over` names. */
export const chosen = (base: AccountChoice, over: AccountChoice | undefined): AccountChoice =>
  over && Object.keys(over).length ? { ...base, ...over } : base;
