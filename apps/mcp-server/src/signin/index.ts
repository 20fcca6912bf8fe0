import type { Logger, TokenProvider } from "@toolkits/core";

/**
 * Runs `login <provider>`, `logout <provider>` or `auth status`; resolves to the exit code.
 * (Placeholder until sign-in lands.)
 */
export async function runSigninCommand(args: string[], _logger: Logger): Promise<number> {
  process.stderr.write(`toolkits-mcp: ${args.join(" ")} is not available yet.\n`);
  return 2;
}

/** Access tokens from the user's token store, refreshed before they expire. (Placeholder.) */
export function storedTokens(_env: NodeJS.ProcessEnv, _logger: Logger): TokenProvider {
  return () => undefined;
}
