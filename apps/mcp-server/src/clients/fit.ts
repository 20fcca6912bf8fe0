import { mostTools, type OfferedUrl } from "../connectors/offer.js";
import { withoutTrailingSlash } from "../urls.js";
import {
  CLIENTS,
  type ClientAuth,
  type ClientGuide,
  type DeepLink,
  SERVER_NAME,
  type Snippet,
  type Target,
} from "./index.js";

/** The URL a client is best given, and why, in sentences. */
export interface Fit {
  /** The path of the URL its snippets use (`/mcp`, `/mcp/search`). */
  path: string;
  advice: string[];
}

/**
 * Which of `urls` (the first being `/mcp`) fits `guide`'s limits, given the served tools' names
 * and the server name the snippets use: a client capped below the most `/mcp` may list (MCP Apps
 * tools included) gets the search catalogue, and is told of the narrower URLs within its cap; a
 * client naming tools `<prefix><tool>` is told how long the server's name may be.
 */
export function fitOf(
  guide: ClientGuide,
  urls: readonly OfferedUrl[],
  toolNames: readonly string[],
  name: string,
): Fit {
  const whole = urls[0];
  const { maxTools, toolName } = guide.limits;
  const advice: string[] = [];
  let path = "/mcp";
  const lists = (url: OfferedUrl) => `${url.withApps === undefined ? "" : "up to "}${mostTools(url)}`;
  if (maxTools !== undefined && whole && mostTools(whole) > maxTools) {
    path = "/mcp/search";
    const within = urls.filter(
      (url) => url.path !== "/mcp" && url.path !== path && mostTools(url) <= maxTools,
    );
    advice.push(
      `${guide.title} takes at most ${maxTools} tools per request and /mcp lists ${lists(whole)}, so the snippet uses /mcp/search (search_tools and call_tool find and run any tool)` +
        (within.length
          ? `; or pick a narrower URL: ${within.map((url) => `${url.path} (${lists(url)})`).join(", ")}.`
          : "."),
    );
  } else if (maxTools !== undefined && whole) {
    advice.push(`${guide.title} takes at most ${maxTools} tools per request; /mcp lists ${lists(whole)}.`);
  }
  if (toolName) {
    const longest = toolNames.reduce((found, tool) => (tool.length > found.length ? tool : found), "");
    const room = toolName.maxName - toolName.prefix("").length - longest.length;
    const verdict = name.length <= room ? `${name} fits` : `${name} is too long: shorten it`;
    advice.push(
      `${guide.title} names each tool ${toolName.prefix("<server>")}<tool>, and the model's API refuses names over ${toolName.maxName} characters: the longest tool here, ${longest} (${longest.length} characters), leaves ${room} for the server's name (${verdict}).`,
    );
  }
  return { path, advice };
}

/**
 * `wanted` as a server name every client naming tools `<prefix><tool>` takes beside the longest
 * of `toolNames` (Claude Code: `mcp__<server>__<tool>` within 64 characters): characters other
 * than letters, digits, `-` and `_` made `-`, cut to the room left, without a trailing separator.
 * Never empty: at least its first character.
 */
export function serverNameFitting(wanted: string, toolNames: readonly string[]): string {
  const longest = Math.max(0, ...toolNames.map((tool) => tool.length));
  const room = Math.min(
    ...CLIENTS.flatMap(({ limits: { toolName } }) =>
      toolName ? [toolName.maxName - toolName.prefix("").length - longest] : [],
    ),
  );
  const cleaned = wanted.replace(/[^A-Za-z0-9_-]/g, "-");
  return cleaned.slice(0, Math.max(1, room)).replace(/[-_]+$/, "") || cleaned.slice(0, 1);
}

/** One client's way to add the server, made for its fitting URL. */
export interface ClientPlan {
  guide: ClientGuide;
  target: Target;
  fit: Fit;
  steps: string[];
  snippets: Snippet[];
  deepLink?: DeepLink;
}

/** What a server offers clients: its URL, how they authenticate, its connector URLs and tools. */
export interface Offer {
  /** The public base URL, without `/mcp`. */
  base: string;
  auth: ClientAuth;
  /** The connector URLs worth offering, `/mcp` first (see `offeredUrls`). */
  urls: readonly OfferedUrl[];
  /** The served tools' names, as clients see them. */
  toolNames: readonly string[];
}

/** Each client's plan for `offer`, the server listed under `name`. */
export function clientPlans(offer: Offer, name = SERVER_NAME): ClientPlan[] {
  const base = withoutTrailingSlash(offer.base);
  return CLIENTS.map((guide) => {
    const fit = fitOf(guide, offer.urls, offer.toolNames, name);
    const target = { url: `${base}${fit.path}`, name, auth: offer.auth };
    return {
      guide,
      target,
      fit,
      steps: guide.steps(target),
      snippets: guide.snippets(target),
      deepLink: guide.deepLink?.(target),
    };
  });
}
