import type { Command } from "commander";
import { isLabel, LABEL_FORM } from "../credentials/labels.js";
import { OAUTH_PROVIDER_IDS, README_SECTION } from "../credentials/providers.js";
import { forCommander } from "./help.js";
import { InvalidSetting, integer, oneOf } from "./setting.js";
import type { Commands, SigninSettings } from "./types.js";

/** The OAuth providers `login` and `logout` know. */
const SIGNIN_PROVIDERS: readonly string[] = OAUTH_PROVIDER_IDS;

/** `--label`: an account label. @throws InvalidSetting saying what a label is. */
const label = (value: string): string => {
  if (isLabel(value)) return value;
  throw new InvalidSetting(`It must be an account label: ${LABEL_FORM} (got "${value}").`);
};

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
    .option(
      "--label <label>",
      "keep the account under this label, which --account and connector URLs (pager@<label>) choose it by (default: named from the account, else default); the same label replaces that account",
      forCommander(label),
    )
    .option("--default", "make this account the provider's default (the first one is)")
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
        label: values.label,
        makeDefault: values.default === true,
      };
      exit(await commands.login(id, options, signin));
    });
  root
    .command("logout")
    .description("forget a sign-in and revoke it at the provider; the provider's other accounts stay")
    .argument("<provider>", SIGNIN_PROVIDERS.join(" or "), provider)
    .option("--label <label>", "which account (default: the provider's default)", forCommander(label))
    .action(async (id: string, values: { label?: string }) =>
      exit(await commands.logout(id, { label: values.label }, settings())),
    );
  root
    .command("auth")
    .description("sign-in state: auth status")
    .command("status")
    .description(
      "connected providers, each account by its label (the default marked), scopes, expiry and whether a refresh token is held; never a token",
    )
    .action(async () => exit(await commands.authStatus(settings())));
}
