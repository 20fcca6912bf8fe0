// Facts about this workspace that the release scripts and the packaging test share.

/** The directories of the packages published to npm, relative to the repository root. */
export const PUBLISHED_PACKAGES = [
  "packages/core",
  "packages/pager",
  "packages/sheets",
  "packages/marketing",
  "packages/apps",
  "apps/mcp-server",
];

/** How to run pnpm: the one running this script when there is one, else fetched by npx (CI has only npm). */
export function pnpmCommand() {
  const current = process.env.npm_execpath;
  return current?.includes("pnpm") ? [process.execPath, current] : ["npx", "-y", "pnpm@10.34.8"];
}
