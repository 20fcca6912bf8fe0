import { parseArgs } from "node:util";
import { accessTokenVariable, type Logger, redact } from "@toolkits/core";
import { LOGIN_TIMEOUT_MS, login } from "./login.js";
import { revoke } from "./oauth.js";
import { PROVIDERS, type Provider, README_SECTION } from "./providers.js";
import { type SignIn, TokenStore, tokenFilePath } from "./store.js";
import { isStale } from "./tokens.js";

const usage = (env: NodeJS.ProcessEnv) => `Usage:
  toolkits-mcp login ${Object.keys(PROVIDERS).join("|")} [--no-browser] [--port N] [--timeout SECONDS]
  toolkits-mcp logout ${Object.keys(PROVIDERS).join("|")}
  toolkits-mcp auth status

Signs in to the OAuth providers the tools act for; tokens are kept in
${tokenFilePath(env)} and refreshed by the server.
--no-browser (or BROWSER=none) only prints the sign-in URL; --port fixes the loopback
redirect port (default: a free one); --timeout is how long to wait (default ${LOGIN_TIMEOUT_MS / 1000}).
Setting up the OAuth apps: ${README_SECTION}.
`;

/** Thrown for a malformed command line; answered with the usage text and exit code 2. */
class UsageError extends Error {}

/**
 * Runs `login <provider>`, `logout <provider>` or `auth status`; resolves to the exit code
 * (0 done, 1 failed, 2 bad command line). Prints the sign-in URL and errors to stderr and results
 * to stdout; never a token.
 */
export async function runSigninCommand(args: string[], logger: Logger): Promise<number> {
  const env = process.env;
  try {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        "no-browser": { type: "boolean" },
        port: { type: "string" },
        timeout: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
    const [command, target, ...extra] = positionals;
    if (values.help) return print(process.stdout, usage(env), 0);
    if (extra.length) throw new UsageError(`Unexpected arguments: ${extra.join(" ")}.`);
    const store = new TokenStore(tokenFilePath(env));
    if (command === "login") {
      const provider = providerNamed(target);
      const signIn = await login(provider, env, store, {
        openBrowser: !values["no-browser"] && env.BROWSER !== "none",
        port: integer("--port", values.port ?? "0", 0, 65_535),
        timeoutMs: values.timeout ? integer("--timeout", values.timeout, 1, 3_600) * 1000 : LOGIN_TIMEOUT_MS,
        print: (text) => process.stderr.write(text),
      });
      return print(process.stdout, `${signedInLine(provider, signIn)}\n`, 0);
    }
    if (command === "logout") return await logout(providerNamed(target), store, logger);
    if (command === "auth" && target === "status") return print(process.stdout, await status(store, env), 0);
    throw new UsageError(`Unknown command "${[command, target].filter(Boolean).join(" ")}".`);
  } catch (error) {
    const message = redact(error instanceof Error ? error.message : String(error));
    const usageText = error instanceof UsageError || isParseError(error) ? `\n${usage(env)}` : "";
    return print(process.stderr, `toolkits-mcp: ${message}\n${usageText}`, usageText ? 2 : 1);
  }
}

function print(stream: NodeJS.WriteStream, text: string, code: number): number {
  stream.write(text);
  return code;
}

const isParseError = (error: unknown) =>
  error instanceof TypeError && String((error as NodeJS.ErrnoException).code).startsWith("ERR_PARSE_ARGS");

function providerNamed(id: string | undefined): Provider {
  const provider = id === undefined ? undefined : PROVIDERS[id];
  if (!provider)
    throw new UsageError(`Name a provider: ${Object.keys(PROVIDERS).join(" or ")} (got "${id ?? ""}").`);
  return provider;
}

function integer(flag: string, value: string, min: number, max: number): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    throw new UsageError(`${flag} must be an integer from ${min} to ${max} (got "${value}").`);
  }
  return parsed;
}

function signedInLine(provider: Provider, signIn: SignIn): string {
  const parts = [`Signed in to ${provider.title} (scopes: ${signIn.scopes.join(" ") || "none"}).`];
  if (signIn.expiresAt !== undefined) parts.push(`The access token is valid until ${iso(signIn.expiresAt)}.`);
  parts.push(
    signIn.refreshToken
      ? "The server refreshes it when it expires."
      : "No refresh token was issued: sign in again when it expires.",
  );
  return parts.join(" ");
}

async function logout(provider: Provider, store: TokenStore, logger: Logger): Promise<number> {
  const signIn = await store.get(provider.id);
  if (!signIn) return print(process.stdout, `Not signed in to ${provider.title}.\n`, 0);
  let revoked = false;
  try {
    revoked = await revoke(signIn);
  } catch (error) {
    logger.warn(
      `could not revoke the ${provider.title} sign-in at ${signIn.server.issuer}; removing it here anyway`,
      {
        provider: provider.id,
        reason: redact(error instanceof Error ? error.message : String(error)),
      },
    );
  }
  await store.remove(provider.id);
  const how = revoked ? ` and revoked its tokens at ${signIn.server.issuer}` : "";
  return print(process.stdout, `Signed out of ${provider.title}${how}.\n`, 0);
}

/** One paragraph per provider: connected or not, scopes, expiry, refresh token held; never a token. */
async function status(store: TokenStore, env: NodeJS.ProcessEnv): Promise<string> {
  const signIns = await store.all();
  const now = Date.now();
  const lines = [`Token store: ${store.path}`];
  for (const provider of Object.values(PROVIDERS)) {
    const signIn = signIns[provider.id];
    const heading = `${provider.id} (${provider.title})`;
    if (!signIn) {
      lines.push(`${heading}: not signed in (run \`toolkits-mcp login ${provider.id}\`)`);
    } else {
      lines.push(
        `${heading}: signed in at ${signIn.server.issuer}`,
        `  scopes: ${signIn.scopes.join(" ") || "none"}`,
        `  access token: ${expiry(signIn, now)}`,
        `  refresh token: ${signIn.refreshToken ? "held" : "none"}`,
      );
    }
    const variable = accessTokenVariable(provider.id);
    if (env[variable]) lines.push(`  ${variable} is set in this environment and takes precedence`);
  }
  return `${lines.join("\n")}\n`;
}

function expiry(signIn: SignIn, now: number): string {
  if (signIn.expiresAt === undefined) return `issued ${iso(signIn.obtainedAt)}, no expiry given`;
  const minutes = Math.round((signIn.expiresAt - now) / 60_000);
  const when =
    signIn.expiresAt > now
      ? `expires ${iso(signIn.expiresAt)} (in ${minutes} min)`
      : `expired ${iso(signIn.expiresAt)}`;
  if (!isStale(signIn, now)) return when;
  return `${when}; ${signIn.refreshToken ? "refreshed on next use" : "sign in again"}`;
}

const iso = (epochMs: number) => new Date(epochMs).toISOString();
