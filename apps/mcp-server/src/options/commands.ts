import type { Command } from "commander";
import { OAUTH_PROVIDER_IDS, README_SECTION } from "../credentials/providers.js";
import { forCommander } from "./help.js";
import { integer, oneOf } from "./setting.js";
import type { Commands, SigninSettings } from "./types.js";

/** The OAuth providers `login` and `logout` know. */
const SIGNIN_PROVIDERS: readonly string[] = OAUTH_PROVIDER_IDS;

/**
 * Adds `login`, `logout` and `auth status` to `root`. `settings` reads their settings (from the
 * environment) when one runs, `browser` being false for `BROWSER=none`.
 */
export function signinCommands(
  root: Command,
  commands: Commands,
  settings: () => SigninSettings & { browser: boolean },
): void {
  const provider = forCommander(oneOf(SIGNIN_PROVIDERS));
  const exit = (code: number) => {
    process.exitCode = code;
  };
  root
    .command("login")
    .description(
      "sign in to an OAuth provider the tools act for (authorization code with PKCE through a loopback redirect); the server uses and refreshes the tokens",
    )
    .argument("<provider>", SIGNIN_PROVIDERS.join(" or "), provider)
    .option("--no-browser", "only print the sign-in URL (also BROWSER=none)")
    .option(
      "--port <port>",
      "fixed loopback redirect port (default: a free one)",
      forCommander(integer(0, 65_535)),
      0,
    )
    .option(
      "--timeout <seconds>",
      "how long to wait for the sign-in (default 300)",
      forCommander(integer(1, 3_600)),
    )
    .addHelpText(
      "after",
      () =>
        `\nTokens are kept in ${settings().tokenFile} (mode 0600) and refreshed by the server.\nSetting up the OAuth apps: ${README_SECTION}.`,
    )
    .action(async (id: string, values) => {
      const { browser, ...signin } = settings();
      const options = {
        browser: values.browser && browser,
        port: values.port,
        timeoutSeconds: values.timeout,
      };
      exit(await commands.login(id, options, signin));
    });
  root
    .command("logout")
    .description("forget a sign-in and revoke it at the provider")
    .argument("<provider>", SIGNIN_PROVIDERS.join(" or "), provider)
    .action(async (id: string) => exit(await commands.logout(id, settings())));
  root
    .command("auth")
    .description("sign-in state: auth status")
    .command("status")
    .description("connected providers, scopes, expiry and whether a refresh token is held; never a token")
    .action(async () => exit(await commands.authStatus(settings())));
}
