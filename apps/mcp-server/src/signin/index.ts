import { accessTokenVariable, type Logger, redact } from "@toolkits/core";
import { isStale, type OAuthGrant } from "../credentials/grant.js";
import { OAUTH_PROVIDERS, type OAuthClients, type OAuthProvider } from "../credentials/providers.js";
import { revokeGrant } from "../credentials/renew.js";
import { TokenFile } from "../credentials/token-file.js";
import { LOGIN_TIMEOUT_MS, login } from "./login.js";

/** What the sign-in commands are told by the command line and the environment. */
export interface SignInSettings {
  /** The token file's path (`tokens.json`). */
  tokenFile: string;
  /** This machine's OAuth clients, which `login` signs in with. */
  oauthClients: OAuthClients;
  /** The toolkits' variables: `auth status` says when a `<PROVIDER>_ACCESS_TOKEN` overrides a sign-in. */
  toolkitEnv: Readonly<Record<string, string | undefined>>;
}

/**
 * `login <provider> [--label <label>] [--default]`: signs in and stores the tokens as the account
 * `label` (named from the account when unset), made the provider's default with `makeDefault` (the
 * first account is anyway). Resolves to the exit code (0 signed in, 1 failed); prints the sign-in
 * URL and errors on stderr, the outcome on stdout, never a token.
 */
export async function loginCommand(
  providerId: string,
  options: { browser: boolean; port: number; timeoutSeconds?: number; label?: string; makeDefault?: boolean },
  settings: SignInSettings,
): Promise<number> {
  return reported(async () => {
    const provider = providerNamed(providerId);
    const client = settings.oauthClients[provider.id];
    const store = new TokenFile(settings.tokenFile);
    const signIn = await login(provider, client, store, {
      openBrowser: options.browser,
      port: options.port,
      timeoutMs: options.timeoutSeconds ? options.timeoutSeconds * 1000 : LOGIN_TIMEOUT_MS,
      print: (text) => process.stderr.write(text),
      label: options.label,
    });
    const label = signIn.label as string;
    if (options.makeDefault) await store.makeDefault(provider.id, label);
    const isDefault = (await store.get(provider.id))?.label === label;
    process.stdout.write(`${signedInLine(provider, signIn, isDefault)}\n`);
  });
}

/**
 * `logout <provider> [--label <label>]`: forgets one sign-in (the default account when `label` is
 * unset), revoking it at the provider where it can; the provider's other accounts stay.
 */
export async function logoutCommand(
  providerId: string,
  options: { label?: string },
  settings: Pick<SignInSettings, "tokenFile">,
  logger: Logger,
): Promise<number> {
  return reported(() =>
    logout(providerNamed(providerId), options.label, new TokenFile(settings.tokenFile), logger),
  );
}

/** `auth status`: one paragraph per provider, a line per account with its label, never a token. */
export async function authStatusCommand(settings: Omit<SignInSettings, "oauthClients">): Promise<number> {
  return reported(async () => {
    process.stdout.write(await status(new TokenFile(settings.tokenFile), settings.toolkitEnv));
  });
}

/** Runs a command, answering 0, or 1 with its error on stderr (redacted: never a token). */
async function reported(run: () => Promise<void>): Promise<number> {
  try {
    await run();
    return 0;
  } catch (error) {
    process.stderr.write(`toolkits-mcp: ${redact(error instanceof Error ? error.message : String(error))}\n`);
    return 1;
  }
}

function providerNamed(id: string): OAuthProvider {
  const provider = OAUTH_PROVIDERS.find((each) => each.id === id);
  if (!provider) {
    throw new Error(`Name a provider: ${OAUTH_PROVIDERS.map((each) => each.id).join(" or ")} (got "${id}").`);
  }
  return provider;
}

function signedInLine(provider: OAuthProvider, signIn: OAuthGrant, isDefault: boolean): string {
  const parts = [
    `Signed in to ${provider.title} (scopes: ${signIn.scopes.join(" ") || "none"}).`,
    `Kept as the account “${signIn.label}”${isDefault ? `, ${provider.id}'s default` : ""}.`,
  ];
  if (signIn.expiresAt !== undefined) parts.push(`The access token is valid until ${iso(signIn.expiresAt)}.`);
  parts.push(
    signIn.refreshToken
      ? "The server refreshes it when it expires."
      : "No refresh token was issued: sign in again when it expires.",
  );
  return parts.join(" ");
}

async function logout(
  provider: OAuthProvider,
  label: string | undefined,
  store: TokenFile,
  logger: Logger,
): Promise<void> {
  const signIn = await store.get(provider.id, label);
  const which = label === undefined ? "" : ` as “${label}”`;
  if (!signIn) return void process.stdout.write(`Not signed in to ${provider.title}${which}.\n`);
  let revoked = false;
  try {
    revoked = await revokeGrant(signIn);
  } catch (error) {
    logger.warn(
      `could not revoke the ${provider.title} sign-in at ${signIn.server.issuer}; removing it here anyway`,
      {
        provider: provider.id,
        reason: redact(error instanceof Error ? error.message : String(error)),
      },
    );
  }
  await store.remove(provider.id, signIn.label);
  const how = revoked ? ` and revoked its tokens at ${signIn.server.issuer}` : "";
  const next = await store.get(provider.id);
  const rest = next ? ` “${next.label}” is now ${provider.id}'s default.` : "";
  process.stdout.write(`Signed out of ${provider.title}${how} (the account “${signIn.label}”).${rest}\n`);
}

/**
 * One paragraph per provider: not signed in, or each account by its label (the default marked)
 * with its scopes, expiry and whether a refresh token is held; never a token.
 */
async function status(store: TokenFile, env: SignInSettings["toolkitEnv"]): Promise<string> {
  const now = Date.now();
  const lines = [`Token store: ${store.path}`];
  for (const provider of OAUTH_PROVIDERS) {
    const accounts = await store.list(provider.id);
    const heading = `${provider.id} (${provider.title})`;
    if (!accounts.length) lines.push(`${heading}: not signed in (run \`toolkits-mcp login ${provider.id}\`)`);
    else lines.push(`${heading}: ${accounts.length} account${accounts.length === 1 ? "" : "s"}`);
    accounts.forEach((signIn, index) => {
      lines.push(...accountLines(signIn, index === 0, now));
    });
    const variable = accessTokenVariable(provider.id);
    if (env[variable])
      lines.push(
        `  ${variable} is set in this environment and takes precedence, unless an account is chosen by its label`,
      );
  }
  return `${lines.join("\n")}\n`;
}

function accountLines(signIn: OAuthGrant, isDefault: boolean, now: number): string[] {
  const as = signIn.account ? ` as ${signIn.account}` : "";
  return [
    `  ${signIn.label}${isDefault ? " (default)" : ""}: signed in at ${signIn.server.issuer}${as}`,
    `    scopes: ${signIn.scopes.join(" ") || "none"}`,
    `    access token: ${expiry(signIn, now)}`,
    `    refresh token: ${signIn.refreshToken ? "held" : "none"}`,
  ];
}

function expiry(signIn: OAuthGrant, now: number): string {
  if (signIn.expiresAt === undefined) return `issued ${iso(signIn.connectedAt)}, no expiry given`;
  const minutes = Math.round((signIn.expiresAt - now) / 60_000);
  const when =
    signIn.expiresAt > now
      ? `expires ${iso(signIn.expiresAt)} (in ${minutes} min)`
      : `expired ${iso(signIn.expiresAt)}`;
  if (!isStale(signIn, now)) return when;
  return `${when}; ${signIn.refreshToken ? "refreshed on next use" : "sign in again"}`;
}

const iso = (epochMs: number) => new Date(epochMs).toISOString();
