import type { Grant } from "../../credentials/grant.js";
import { PROVIDERS, type ProviderId } from "../../credentials/providers.js";
import type { Account, UpstreamConnection } from "../../front/account.js";
import { CONNECT_PATH } from "../connections.js";
import type { ConnectContext } from "./context.js";
import { currentSession } from "./session.js";

/**
 * The signed-in person of `request`'s browser and their connections to `providers`, each either
 * with its disconnect form's action or a connect link (the person's live one-time code, as a tool
 * call would hand out); undefined when the browser is not signed in.
 * @throws StoreUnavailable when the store is out of reach.
 */
export async function accountOf(
  ctx: ConnectContext,
  request: Request,
  providers: readonly ProviderId[],
): Promise<Account | undefined> {
  const session = await currentSession(ctx, request);
  if (!session) return undefined;
  const { principal, display, csrf } = session.record;
  const grants = await ctx.connections.list(principal);
  const connections = await Promise.all(
    providers.map(async (provider): Promise<UpstreamConnection> => {
      const title = PROVIDERS[provider].title;
      const grant = grants.find((found) => found.provider === provider);
      if (grant) {
        const disconnectAction = `${CONNECT_PATH}/${provider}/disconnect`;
        return { provider, title, connected: true, detail: describe(grant), disconnectAction };
      }
      const link = await ctx.connections.link(principal, provider);
      return { provider, title, connected: false, connectUrl: link.url };
    }),
  );
  const labels = Object.fromEntries(
    providers.map((provider) => [
      provider,
      grants.filter((g) => g.provider === provider).map((g) => g.label ?? ""),
    ]),
  );
  return { who: display ?? principal, csrf, connections, labels };
}

function describe(grant: Grant): string {
  const connected = new Date(grant.connectedAt).toISOString().slice(0, 16).replace("T", " ");
  const region =
    grant.provider === "marketing" && grant.region ? `${grant.region.toUpperCase()} region, ` : "";
  return `${grant.account ? `as ${grant.account}, ` : ""}${region}connected ${connected} UTC`;
}
