import type { RequestHandler } from "msw";

interface Route {
  handler: RequestHandler;
  /** Upper-case method, or undefined for any method. */
  method?: string;
  /** The handler URL's literal start (before any `:param` or `*`), or undefined to always ask it. */
  prefix?: string;
}

/**
 * A fetch that answers requests to the fakes' hosts from their msw handlers and sends any other
 * request (a JWKS, say) to `network`. It replaces msw's process-wide interception in `--sandbox`:
 * every upstream client here goes through fetch, and asking msw only the few handlers a URL can
 * match costs a fraction of asking all of them.
 * @throws TypeError for a request to a faked host that no handler answers (as fetch does offline).
 */
export async function sandboxFetch(
  handlers: readonly RequestHandler[],
  network: typeof fetch = globalThis.fetch,
): Promise<typeof fetch> {
  const { getResponse } = await import("msw");
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
