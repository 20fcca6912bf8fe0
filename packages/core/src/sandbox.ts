import type { RequestHandler } from "msw";
import { envHost, type Host } from "./context.js";
import { loadPeer } from "./peers.js";
import { secretsFromMap } from "./secrets.js";
import type { Sandbox, Toolkit } from "./tool.js";

/**
 * A host answering from `toolkits`' built-in fake upstreams (their sandboxes), with the fakes'
 * credentials and settings, so their tools run with no account: for demos, tests and
 * `toolkits-mcp --sandbox`. No URL settings are set, so each toolkit's default upstream host, where
 * its fakes answer, applies. `overrides` replace any part (a logger, the result cap, …).
 * Needs msw 2 (an optional peer of this package).
 * @throws Error naming msw when it is not installed.
 */
export async function sandboxHost(
  toolkits: readonly Toolkit[],
  overrides: Partial<Host> = {},
): Promise<Host> {
  const sandboxes = await Promise.all(toolkits.map((kit) => kit.sandbox()));
  const merged = (pick: (box: Sandbox) => Readonly<Record<string, string>> | undefined) =>
    new Map(sandboxes.flatMap((box) => Object.entries(pick(box) ?? {})));
  const tokens = merged((box) => box.tokens);
  const settings = merged((box) => box.settings);
  return envHost(
    {},
    {
      secrets: secretsFromMap(Object.fromEntries(merged((box) => box.secrets))),
      tokens: (provider) => tokens.get(provider),
      settings: (name) => settings.get(name),
      fetch: await sandboxFetch(sandboxes.flatMap((box) => box.handlers as RequestHandler[])),
      ...overrides,
    },
  );
}

interface Route {
  handler: RequestHandler;
  /** Upper-case method, or undefined for any method. */
  method?: string;
  /** The handler URL's literal start (before any `:param` or `*`), or undefined to always ask it. */
  prefix?: string;
}

/**
 * A fetch that answers requests to the fakes' hosts from their msw handlers and sends any other
 * request (a JWKS, say) to `network`, without msw's process-wide interception: every toolkit's
 * client sends with its host's fetch, and asking msw only the few handlers a URL can match costs
 * a fraction of asking all of them.
 * @throws TypeError for a request to a faked host that no handler answers (as fetch does offline).
 */
export async function sandboxFetch(
  handlers: readonly RequestHandler[],
  network: typeof fetch = globalThis.fetch,
): Promise<typeof fetch> {
  const { getResponse } = await loadPeer(() => import("msw"), "@toolkits/core (sandboxHost)", "msw", "^2");
  const routes: Route[] = handlers.map((handler) => {
    const { method, path } = (handler.info ?? {}) as { method?: unknown; path?: unknown };
    return {
      handler,
      method: typeof method === "string" ? method.toUpperCase() : undefined,
      prefix: typeof path === "string" ? literalPrefix(path) : undefined,
    };
  });
  const faked = new Set(routes.flatMap(({ prefix }) => (prefix ? [new URL(prefix).origin] : [])));
  return async (input, init) => {
    const plain = input instanceof Request && (!init || Object.keys(init).length === 0);
    const request = plain ? input : new Request(input, init);
    const { url, method } = request;
    if (!faked.has(new URL(url).origin)) return network(request);
    const candidates = routes
      .filter(
        (route) =>
          (!route.method || route.method === method) && (!route.prefix || url.startsWith(route.prefix)),
      )
      .map((route) => route.handler);
    const response = await getResponse(candidates, request);
    if (!response) throw new TypeError(`The sandbox has no fake for ${method} ${url}`);
    return response;
  };
}

/** `https://api.pagerduty.com/incidents/:id` → `https://api.pagerduty.com/incidents/`; undefined if not absolute. */
function literalPrefix(path: string): string | undefined {
  const scheme = /^https?:\/\/[^/]+/.exec(path);
  if (!scheme) return undefined;
  const rest = path.slice(scheme[0].length);
  const variable = rest.search(/[:*]/);
  return scheme[0] + (variable < 0 ? rest : rest.slice(0, variable));
}
