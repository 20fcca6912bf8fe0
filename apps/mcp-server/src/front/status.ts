import { type AnyToolDefinition, createContext, type Host, redact } from "@toolkits/core";
import { isOAuthProvider, PROVIDERS } from "../credentials/providers.js";
import { providersOf, type UpstreamConnection } from "./account.js";

/**
 * A shared server's upstream accounts (the credentials every caller's calls use: its environment
 * and the `toolkits-mcp login` token file), looked up as a call of the first tool needing each
 * would, with the commands or settings that change them. On `--sandbox`, the fakes.
 */
export function sharedConnections(
  tools: readonly AnyToolDefinition[],
  host: Host,
  sandbox: boolean,
): () => Promise<UpstreamConnection[]> {
  return () =>
    Promise.all(
      providersOf(tools).map(async (provider): Promise<UpstreamConnection> => {
        const title = PROVIDERS[provider].title;
        const howTo = isOAuthProvider(provider)
          ? [`toolkits-mcp login ${provider}`, `toolkits-mcp logout ${provider}`]
          : ["MARKETING_API_KEY=… MARKETING_REGION=us|eu in the server's environment"];
        if (sandbox) return { provider, title, connected: true, detail: "the sandbox's fake account" };
        const tool = tools.find((candidate) => providersOf([candidate]).includes(provider));
        try {
          await createContext(host, tool?.auth ?? {}).credential();
          return { provider, title, connected: true, detail: "set up on this server", howTo };
        } catch (error) {
          return { provider, title, connected: false, detail: redact((error as Error).message), howTo };
        }
      }),
    );
}
