import { type Logger, redact } from "@toolkits/core";
import { clientPlans } from "../clients/fit.js";
import type { ClientAuth } from "../clients/index.js";
import type { AccountLabels, AccountUrl } from "../connectors/accounts.js";
import type { OfferedUrl } from "../connectors/offer.js";
import type { ProviderId } from "../credentials/providers.js";
import { withoutTrailingSlash } from "../urls.js";
import type { Html } from "../web/html.js";
import { page } from "../web/respond.js";
import type { Account, UpstreamConnection } from "./account.js";
import { FRONT_CSP } from "./assets.js";
import { type FrontView, frontPage, messagePage } from "./page.js";

/** Where the front page lives: the server's root. */
export const FRONT_PATH = "/";

/** What the front page needs of the server. */
export interface FrontDeps {
  /** The public base URL. */
  publicUrl: string;
  version: string;
  /** How clients authenticate here. */
  auth: ClientAuth;
  /**
   * The connector URLs offered, `/mcp` first, with what each lists. Asked once, on the first
   * request: counting builds each URL's registries, which a server need not build to start.
   */
  urls(): readonly OfferedUrl[];
  /** The served tools' names, as clients see them. */
  toolNames: readonly string[];
  /** Per user: who the browser is (see `ConnectSite.account`), and how to sign it in. */
  people?: {
    providers: readonly ProviderId[];
    account(request: Request, providers: readonly ProviderId[]): Promise<Account | undefined>;
    signIn(returnTo: string): Promise<Response>;
  };
  /** Per user: the connector URLs acting as each of a person's accounts (see `accountUrls`). */
  accountUrls?(labels: AccountLabels): readonly AccountUrl[];
  /** Shared: the server's upstream accounts. */
  shared?: () => Promise<UpstreamConnection[]>;
  /** Bound to loopback: a shared server shows the page to anyone who reaches it there. */
  loopback: boolean;
  logger: Logger;
}

/**
 * `GET /`: per user, to a signed-in person (anyone else is sent to sign in, as on /connect); on a
 * shared server, only on loopback (undefined elsewhere: 404). Server-rendered, with the server's
 * pages' security headers and a CSP allowing only its own script (the copy buttons) and style.
 * A store out of reach is answered 503 with `Retry-After`.
 */
export function frontHandler(deps: FrontDeps): (request: Request) => Promise<Response | undefined> {
  const base = withoutTrailingSlash(deps.publicUrl);
  let offer: Pick<FrontView, "base" | "version" | "urls" | "plans"> | undefined;
  const offered = () => {
    if (offer) return offer;
    const urls = deps.urls();
    const plans = clientPlans({ base, auth: deps.auth, urls, toolNames: deps.toolNames });
    offer = { base, version: deps.version, urls, plans };
    return offer;
  };
  return async (request) => {
    if (!deps.people && !deps.loopback) return undefined;
    if (request.method !== "GET" && request.method !== "HEAD")
      return answer(405, messagePage("Not allowed", "This page takes GET only."), { allow: "GET" });
    try {
      const view = offered();
      if (!deps.people)
        return answer(200, frontPage({ ...view, connections: (await deps.shared?.()) ?? [] }));
      const account = await deps.people.account(request, deps.people.providers);
      if (!account) return deps.people.signIn(FRONT_PATH);
      const person = { who: account.who, csrf: account.csrf };
      const accountUrls = deps.accountUrls?.(account.labels) ?? [];
      return answer(200, frontPage({ ...view, connections: account.connections, person, accountUrls }));
    } catch (error) {
      deps.logger.warn("front page failed", { reason: redact((error as Error).message) });
      const text = "This page could not be made right now. Reload it in a moment.";
      return answer(503, messagePage("Try again shortly", text), { "retry-after": "5" });
    }
  };
}

/** A page with the pages' security headers (web/respond.ts), under the front page's own CSP. */
function answer(status: number, body: Html, headers: Record<string, string> = {}): Response {
  return page(status, body, { headers: { ...headers, "content-security-policy": FRONT_CSP } });
}
