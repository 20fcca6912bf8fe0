import type { Icon, Tool } from "@modelcontextprotocol/server";
import type { Toolkit } from "@toolkits/core";
import type { ToolRegistry } from "@toolkits/core/mcp";
import { withoutTrailingSlash } from "../urls.js";
import { PNG_ICONS } from "./png.js";
import { type IconName, SVG_ICONS } from "./svg.js";

/** Where the icons are served over HTTP: `/icons/<name>.svg` and `/icons/<name>.png`. */
export const ICONS_PATH = "/icons/";
/** The server's own icon's name; each toolkit's is its id. */
export const SERVER_ICON: IconName = "toolkits";
/** The PNGs' size, in pixels. */
const PNG_SIZE = "64x64";

/** The icons clients are shown (MCP's `icons`, 2025-11-25 and 2026-07-28). */
export interface IconSet {
  /** The server's, for its implementation info (`initialize`, `server/discover`). */
  server: Icon[];
  /** The icons of a toolkit's tools, by toolkit id; the server's for a tool of none (`search_tools`). */
  toolkit(id: string | undefined): Icon[];
}

/**
 * The icons as URLs on `publicUrl`, each as SVG and PNG (served by `iconResponse`), or, over stdio
 * (no `publicUrl`, no HTTP server), as data: the server's as SVG and PNG, the tools' as SVG only,
 * since the listing carries one per tool (a PNG each would double its size).
 */
export function iconSet(publicUrl?: string): IconSet {
  const base = publicUrl && withoutTrailingSlash(publicUrl);
  const both = (name: IconName): Icon[] =>
    base
      ? [svgIcon(`${base}${ICONS_PATH}${name}.svg`), pngIcon(`${base}${ICONS_PATH}${name}.png`)]
      : [svgIcon(svgData(name)), pngIcon(`data:image/png;base64,${PNG_ICONS[name]}`)];
  const forTools = (name: IconName): Icon[] => (base ? both(name) : [svgIcon(svgData(name))]);
  const byName = new Map(Object.keys(SVG_ICONS).map((name) => [name, forTools(name as IconName)]));
  const unowned = forTools(SERVER_ICON);
  return { server: both(SERVER_ICON), toolkit: (id) => byName.get(id ?? "") ?? unowned };
}

const svgIcon = (src: string): Icon => ({ src, mimeType: "image/svg+xml", sizes: ["any"] });
const pngIcon = (src: string): Icon => ({ src, mimeType: "image/png", sizes: [PNG_SIZE] });
const svgData = (name: IconName) =>
  `data:image/svg+xml;base64,${Buffer.from(SVG_ICONS[name]).toString("base64")}`;

/**
 * `registry` with each listed tool carrying its toolkit's icons (`toolkits` say which tools are
 * whose), and the search catalogue's tools the server's.
 */
export function withIcons(
  registry: ToolRegistry,
  icons: IconSet,
  toolkits: readonly Toolkit[],
): ToolRegistry {
  // By name prefix (`Pager.`), which also covers a toolkit's tools it does not list (app-only ones).
  const owner = new Map(
    toolkits.flatMap((kit) => kit.tools.map((tool) => [prefixOf(tool.name), kit.id] as const)),
  );
  const listing = registry.listing.map(
    (tool): Tool => ({
      ...tool,
      icons: icons.toolkit(owner.get(prefixOf(registry.names.canonical(tool.name) ?? ""))),
    }),
  );
  return { ...registry, listing };
}

const prefixOf = (name: string): string => name.split(".", 1)[0] ?? "";

/** Browsers and clients may keep an icon a day; a new version may change it. */
const ICON_HEADERS = {
  "cache-control": "public, max-age=86400",
  "x-content-type-options": "nosniff",
  // An SVG opened as a page runs nothing and loads nothing.
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
};

/** The answer to `GET /icons/<name>.svg|png`; undefined for a path naming no icon. */
export function iconResponse(path: string): Response | undefined {
  const match = /^\/icons\/([a-z]+)\.(svg|png)$/.exec(path);
  const name = match?.[1] as IconName | undefined;
  if (!match || !name || !Object.hasOwn(SVG_ICONS, name)) return undefined;
  const [body, type] =
    match[2] === "svg"
      ? [SVG_ICONS[name], "image/svg+xml"]
      : [Buffer.from(PNG_ICONS[name] ?? "", "base64"), "image/png"];
  return new Response(body, { headers: { ...ICON_HEADERS, "content-type": type } });
}
