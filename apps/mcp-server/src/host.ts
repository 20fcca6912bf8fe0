import {
  assertCredentials,
  envHost,
  type Host,
  type Logger,
  type Sandbox,
  secretsFromMap,
  type Toolkit,
  tokensFromEnv,
} from "@toolkits/core";
import { storedTokens } from "./signin/index.js";

/**
 * Credentials and settings from the environment, the normal way to run; OAuth access tokens
 * fall back to the user's sign-in store (`toolkits-mcp login`) when no `*_ACCESS_TOKEN` is set.
 */
export function environmentHost(logger: Logger, maxResultBytes: number, env = process.env): Host {
  const fromEnv = tokensFromEnv(env);
  const fromStore = storedTokens(env, logger);
  return envHost(env, {
    logger,
    maxResultBytes,
    tokens: async (provider, scopes) => (await fromEnv(provider, scopes)) ?? fromStore(provider, scopes),
  });
}

/**
 * Starts every toolkit's fake upstream in this process (msw intercepts outgoing requests) and
 * returns a host holding the fakes' credentials; settings stay empty so default upstream URLs apply.
 */
export async function sandboxHost(
  toolkits: Toolkit[],
  logger: Logger,
  maxResultBytes: number,
): Promise<Host> {
  const [{ setupServer }, sandboxes] = await Promise.all([
    import("msw/node"),
    Promise.all(toolkits.map((kit) => kit.sandbox())),
  ]);
  // biome-ignore lint/suspicious/noExplicitAny: core types sandbox handlers loosely so it needs no msw
  const handlers = sandboxes.flatMap((box: Sandbox) => box.handlers as any[]);
  setupServer(...handlers).listen({ onUnhandledRequest: "error" });
  const tokens = Object.assign({}, ...sandboxes.map((box) => box.tokens ?? {}));
  return envHost(
    {},
    {
      secrets: secretsFromMap(Object.assign({}, ...sandboxes.map((box) => box.secrets ?? {}))),
      tokens: (provider) => tokens[provider],
      logger,
      maxResultBytes,
    },
  );
}

/**
 * Warns once per toolkit whose credentials are missing. The toolkit still starts: its tools answer
 * `unauthenticated` with the same advice.
 */
export async function warnMissingCredentials(toolkits: Toolkit[], host: Host): Promise<void> {
  for (const kit of toolkits) {
    const first = kit.tools[0];
    if (!first) continue;
    try {
      await assertCredentials(first.auth, host);
    } catch (error) {
      host.logger.warn(`${kit.title} tools are not configured and will answer unauthenticated.`, {
        toolkit: kit.id,
        reason: (error as Error).message,
        setup: kit.setup,
      });
    }
  }
}
