import type { AnyToolDefinition, Host, Toolkit } from "@toolkits/core";
import { API_KEY_SECRET } from "@toolkits/marketing";
import { type AccountChoice, isLabel, LABEL_FORM } from "./labels.js";
import { isProviderId, type ProviderId } from "./providers.js";
import type { GrantStore } from "./store.js";

/**
 * The provider whose account a tool acts as: the OAuth provider it names, or `marketing` for the
 * App API key; `undefined` for a tool needing no account.
 */
export function providerOfTool(tool: AnyToolDefinition): ProviderId | undefined {
  const provider = tool.auth.oauth?.provider;
  if (provider === "pager" || provider === "google") return provider;
  return tool.auth.secret === API_KEY_SECRET ? "marketing" : undefined;
}

/** The provider whose accounts a toolkit's tools act as; `undefined` for a toolkit needing no account. */
export function providerOfToolkit(toolkit: Toolkit): ProviderId | undefined {
  for (const tool of toolkit.tools) {
    const provider = providerOfTool(tool);
    if (provider) return provider;
  }
  return undefined;
}

/** A malformed account choice; its message says which part and why. */
export class AccountChoiceError extends Error {
  override name = "AccountChoiceError";
}

/**
 * The choice `pairs` make, each a toolkit's id (or a provider's, as `login` names it: `google`)
 * and the label of the account it acts as (`[["pager", "eu"], ["sheets", "work"]]`), by provider.
 * @throws AccountChoiceError for a name that is neither a toolkit of `toolkits` with accounts nor a
 *   provider, a label that is not one, or a provider chosen twice.
 */
export function choiceOf(
  pairs: readonly (readonly [toolkit: string, label: string])[],
  toolkits: Readonly<Record<string, Toolkit>>,
): AccountChoice {
  const choice: Partial<Record<ProviderId, string>> = {};
  for (const [id, label] of pairs) {
    const kit = toolkits[id];
    const provider = kit ? providerOfToolkit(kit) : isProviderId(id) ? id : undefined;
    if (!provider)
      throw new AccountChoiceError(
        `“${id}” is not a toolkit with accounts; choose one of ${withAccounts(toolkits).join(", ")}.`,
      );
    if (!isLabel(label)) throw new AccountChoiceError(`“${label}” is not an account label (${LABEL_FORM}).`);
    if (choice[provider] !== undefined)
      throw new AccountChoiceError(`The account of “${id}” is chosen twice.`);
    choice[provider] = label;
  }
  return choice;
}

const withAccounts = (toolkits: Readonly<Record<string, Toolkit>>) =>
  Object.values(toolkits)
    .filter((kit) => providerOfToolkit(kit) !== undefined)
    .map((kit) => kit.id);

/**
 * The credential parts of a host acting as chosen accounts: its tokens and secrets, or, for a host
 * serving many people, each person's view.
 */
export type ChosenParts = Partial<Pick<Host, "tokens" | "secrets" | "forPrincipal">>;

/** The account a call acted as at one provider: its label, and whether it is the provider's default. */
export interface AnsweringAccount {
  label: string;
  isDefault: boolean;
}

/** A host that can act as chosen accounts (the shared and per-user hosts; not the sandbox's fakes). */
export interface ChoosingHost extends Host {
  /** The credential parts acting as `choice` (the server's own choice already applied beneath it). */
  chooseAccounts?(choice: AccountChoice): ChosenParts;
  /**
   * The account a call of `principal` (undefined: the one local user) acts as at `provider` under
   * `choice` (the server's own beneath it); `undefined` when no labelled account answers (a
   * credential from the environment, or none). Reads the store: for who-am-I answers only.
   */
  answeringAccount?(
    provider: ProviderId,
    principal: string | undefined,
    choice: AccountChoice,
  ): Promise<AnsweringAccount | undefined>;
}

/**
 * `host` acting as the accounts `choice` names, everything else (its fetch, recorders, pages) as it
 * is; `host` itself for no choice, or a host that keeps one identity (the sandbox).
 */
export function withChosenAccounts(host: ChoosingHost, choice: AccountChoice | undefined): Host {
  if (!choice || !Object.keys(choice).length || !host.chooseAccounts) return host;
  return { ...host, ...host.chooseAccounts(choice) };
}

/**
 * The account of `store` a call acts as at `provider`: the one labelled `label`, else the
 * default; `undefined` when there is none. @throws as the store's reads.
 */
export async function accountIn<P extends ProviderId>(
  store: GrantStore<P>,
  provider: P,
  label: string | undefined,
): Promise<AnsweringAccount | undefined> {
  const [answering, byDefault] = await Promise.all([
    store.get(provider, label),
    label === undefined ? undefined : store.get(provider),
  ]);
  if (!answering?.label) return undefined;
  return { label: answering.label, isDefault: (byDefault ?? answering).label === answering.label };
}
