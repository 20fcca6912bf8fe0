import type { CallToolResult } from "@modelcontextprotocol/server";
import type { AnyToolDefinition } from "@toolkits/core";
import type { CallResult, ToolRegistry } from "@toolkits/core/mcp";
import { type AnsweringAccount, type ChoosingHost, providerOfTool } from "./credentials/choice.js";
import type { AccountChoice } from "./credentials/labels.js";
import { PROVIDERS, type ProviderId } from "./credentials/providers.js";

/**
 * The tools that say who the caller is upstream: their answers also say which of the person's
 * accounts answered. Their schemas and listings stay as they are; only their results gain it.
 */
const WHO_AM_I = new Set(["Pager.WhoAmI", "Sheets.WhoAmI", "MarketingApi.ListWorkspaces"]);

/** The search catalogue's tool that runs another by name (`call_tool`, args `{ name, arguments }`). */
const CALL_TOOL = "call_tool";

/** Where a who-am-I result's `_meta` names the account: `{ provider, label, default }`. */
export const ACCOUNT_META_KEY = "io.github.agent-toolkits/account";

/**
 * `registry` whose who-am-I results (WHO_AM_I, run directly or through `call_tool`) say which
 * account answered: a second text content (which the model reads) and `_meta[ACCOUNT_META_KEY]`,
 * the structured content unchanged, so it still matches the tool's output schema. The account is
 * asked of `host` (one store read) for these calls only; a result of a credential that names no
 * account (the environment's) is left as it is, as is every error.
 */
export function namingAccounts(
  registry: ToolRegistry,
  tools: readonly AnyToolDefinition[],
  host: ChoosingHost,
  choice: AccountChoice,
): ToolRegistry {
  const ask = host.answeringAccount;
  const providers = new Map(
    tools.filter((tool) => WHO_AM_I.has(tool.name)).map((tool) => [tool.name, providerOfTool(tool)]),
  );
  if (!ask || !providers.size) return registry;
  const providerOf = (name: string, args: unknown): ProviderId | undefined => {
    const canonical = registry.names.canonical(name);
    const target = canonical === undefined && name === CALL_TOOL ? calledName(args) : canonical;
    return target === undefined ? undefined : providers.get(registry.names.canonical(target) ?? "");
  };
  return {
    ...registry,
    // Every other call goes straight through: no extra promise on the call path.
    call(name, args, scope) {
      const provider = providerOf(name, args);
      const answer = registry.call(name, args, scope);
      if (!provider) return answer;
      return answer.then(async (result) => {
        if (!isAnswer(result)) return result;
        const account = await ask(provider, scope.principal, choice).catch(() => undefined);
        return account ? named(result, provider, account) : result;
      });
    },
  };
}

const calledName = (args: unknown): string | undefined => {
  const name = (args as { name?: unknown } | undefined)?.name;
  return typeof name === "string" ? name : undefined;
};

const isAnswer = (result: CallResult): result is CallToolResult =>
  "content" in result && Array.isArray(result.content) && result.isError !== true;

/** `result` with a sentence and `_meta` naming the account that answered; a new object, so its JSON is made anew. */
function named(result: CallToolResult, provider: ProviderId, account: AnsweringAccount): CallToolResult {
  const title = PROVIDERS[provider].title;
  const which = account.isDefault ? "the default" : "not the default";
  const text = `Answered by the ${title} account “${account.label}” (${which}).`;
  return {
    ...result,
    content: [...result.content, { type: "text", text }],
    _meta: {
      ...result._meta,
      [ACCOUNT_META_KEY]: { provider, label: account.label, default: account.isDefault },
    },
  };
}
