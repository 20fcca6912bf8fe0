import { defineTool, lazy, READ_ONLY_HINTS, type ToolContext } from "@toolkits/core";
import { z } from "zod";
import { createPagerClient, MAX_OFFSET_PLUS_LIMIT, MAX_PAGE_SIZE, type PagerClient } from "../client.js";
import type { UserMatch } from "../directory.js";
import { ACCEPT_CONFIDENCE, ACCEPT_MARGIN, cachedDirectory, MAX_MATCHES } from "../directory-cache.js";
import { pagerAuth, SCOPES } from "../params.js";
import { userRecord, userSchema } from "../records.js";

const matchSchema = lazy(() =>
  userSchema().extend({
    confidence: z.number().describe("0 to 1"),
    accepted: z.boolean().optional(),
  }),
);

const inputSchema = lazy(() =>
  z.object({
    query: z.string().trim().min(1).max(200).describe("Name or email, or part of one"),
    auto_accept_matches: z.boolean().default(false),
  }),
);
const outputSchema = lazy(() =>
  z.object({
    matches: z.array(matchSchema()),
    searched: z.enum(["name query", "directory"]).describe("Where the matches were found"),
    users_searched: z.number().int(),
    note: z.string().optional(),
  }),
);

export const searchUsers = defineTool({
  name: "Pager.SearchUsers",
  title: "Search users",
  description: `Finds users by name or email, tolerating typos; up to ${MAX_MATCHES} matches with a confidence from 0 to 1. With auto_accept_matches the best match alone is returned, accepted: true, when its confidence is at least ${ACCEPT_CONFIDENCE} and ${ACCEPT_MARGIN} above the runner-up; otherwise the candidates, none accepted.`,
  input: inputSchema,
  output: outputSchema,
  hints: READ_ONLY_HINTS,
  auth: pagerAuth(SCOPES.users),
  async handler({ query, auto_accept_matches }, context) {
    const client = await createPagerClient(context);
    // The fuzzy search (and Fuse with it) loads on the first search, not with the toolkit.
    const search = await import("../directory.js");
    const found =
      (await byNameQuery(search, client, query)) ?? (await byDirectory(search, client, query, context));
    const accepted = auto_accept_matches ? search.acceptedMatch(found.matches) : undefined;
    const shown = accepted ? [accepted] : found.matches;
    return {
      matches: shown.map(({ user, confidence }) => ({
        ...userRecord(user),
        confidence,
        accepted: auto_accept_matches ? accepted !== undefined : undefined,
      })),
      searched: found.searched,
      users_searched: found.users_searched,
      note: note(found, auto_accept_matches && !accepted),
    };
  },
});

/** The fuzzy search, imported by the handler. */
type Search = typeof import("../directory.js");

interface Found {
  matches: UserMatch[];
  searched: "name query" | "directory";
  users_searched: number;
  complete: boolean;
}

/**
 * PagerDuty's own name query answers in one request when it finds a near-exact name. It cannot
 * see emails or typos, so anything less falls through to the directory (unless that is cached).
 */
async function byNameQuery(search: Search, client: PagerClient, query: string): Promise<Found | undefined> {
  if (query.includes("@") || cachedDirectory(client)) return undefined;
  const page = await client.users({ query, limit: MAX_PAGE_SIZE, offset: 0, include: ["teams"] });
  if (page.more) return undefined;
  const matches = search.matchAmong(page.items, query);
  if ((matches[0]?.confidence ?? 0) < ACCEPT_CONFIDENCE) return undefined;
  return { matches, searched: "name query", users_searched: page.items.length, complete: true };
}

async function byDirectory(
  search: Search,
  client: PagerClient,
  query: string,
  context: ToolContext,
): Promise<Found> {
  const directory = await search.userDirectory(client, (update) => context.progress(update));
  // An exact name or email is settled among the users containing it, with the same confidences
  // as the fuzzy search and in a fraction of its time.
  const needle = query.toLowerCase();
  const containing = directory.users.filter((_, i) => directory.haystacks[i]?.includes(needle));
  const exact = containing.some((user) =>
    [user.name, user.email].some((field) => field?.toLowerCase() === needle),
  );
  return {
    matches: exact ? search.matchAmong(containing, query) : search.matchDirectory(directory, query),
    searched: "directory",
    users_searched: directory.users.length,
    complete: directory.complete,
  };
}

function note(found: Found, declined: boolean): string | undefined {
  const parts: string[] = [];
  if (!found.complete) {
    parts.push(
      `Only the first ${MAX_OFFSET_PLUS_LIMIT} users were searched: PagerDuty lists no further. A fuller name may find the person through PagerDuty's name query.`,
    );
  }
  if (declined && found.matches.length) {
    parts.push(
      `No match accepted: it needs confidence >= ${ACCEPT_CONFIDENCE} and a lead of ${ACCEPT_MARGIN} over the runner-up.`,
    );
  }
  if (!found.matches.length) parts.push("No user matches; try another spelling or part of the email.");
  return parts.length ? parts.join(" ") : undefined;
}
