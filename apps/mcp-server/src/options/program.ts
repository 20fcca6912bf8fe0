import { Command, Help, type Option } from "commander";
import { adminCommands } from "./admin.js";
import { signinCommands } from "./commands.js";
import { fromEnvironment, HELP_POINTER } from "./environment.js";
import { flagOption, variableRow } from "./help.js";
import {
  type Environment,
  type Group,
  InvalidSetting,
  type Setting,
  settingsOf,
  type ToolkitVariable,
  valuesOf,
} from "./setting.js";
import { DOCUMENTED_VARIABLES, readEnvironment, SETTINGS } from "./table.js";
import type { Commands } from "./types.js";

const ABOUT_VARIABLES = `
Every flag may be given by its variable instead; the command line wins. A switch's variable
counts when it is 1, true or yes. Secrets are read from the environment only: command lines
are visible to every user of the machine. The toolkits read their own variables; a toolkit
without credentials still starts, and its tools answer unauthenticated saying what to set.`;

/**
 * The `toolkits-mcp` command line, generated from the settings table: serving (the default command)
 * with every setting read from its flag, else its variable in `env`, else its default; and the
 * `login`, `logout`, `auth status`, `admin` and `help` commands. A malformed flag or variable makes parsing
 * throw a CommanderError after printing the problem and a pointer to `--help` (a command's own
 * usage for a command's error); cli.ts exits with 2.
 */
export function program(commands: Commands, version: string, env: Environment = readEnvironment()): Command {
  const root = new Command("toolkits-mcp")
    .description("Serves the pager, sheets and marketing tools over MCP (stdio or Streamable HTTP).")
    .version(version, "-v, --version", "print the version")
    .helpOption("-h, --help", "print this help")
    .addHelpText("after", ABOUT_VARIABLES)
    .showHelpAfterError()
    // Errors come back to cli.ts, which exits with 2 for a bad command line.
    .exitOverride()
    // `login --port` is the login's own option, not the server's.
    .enablePositionalOptions();
  const flags = new Map<Setting<unknown>, Option>();
  const rows: Option[] = [];
  for (const setting of settingsOf(SETTINGS)) {
    if (setting.flag) {
      const option = flagOption(setting);
      flags.set(setting, option);
      root.addOption(option);
    } else rows.push(variableRow(setting.group, setting.env, setting));
  }
  for (const [group, variables] of Object.entries(DOCUMENTED_VARIABLES) as [Group, ToolkitVariable[]][])
    rows.push(...variables.map((variable) => variableRow(group, variable.env, variable)));
  root.configureHelp({
    // The variables without flags are listed in their groups too (they are not options).
    visibleOptions: (command) => [...new Help().visibleOptions(command), ...(command === root ? rows : [])],
  });
  const read = (setting: Setting<unknown>) => {
    const option = flags.get(setting);
    const given = option && root.getOptionValue(option.attributeName());
    return given !== undefined ? given : environmentValue(setting, env, root);
  };
  root.action(async () => commands.serve({ ...valuesOf(SETTINGS, read), toolkitEnv: env }));
  const signin = {
    tokenFile: SETTINGS.tokenFile,
    browser: SETTINGS.browser,
    oauthClients: SETTINGS.oauthClients,
  };
  signinCommands(root, commands, () => ({ ...valuesOf(signin, read), toolkitEnv: env }));
  const store = {
    storeUrl: SETTINGS.storeUrl,
    storePath: SETTINGS.storePath,
    storeKey: SETTINGS.storeKey,
    storeKeyPrevious: SETTINGS.storeKeyPrevious,
    oauthClients: SETTINGS.oauthClients,
  };
  adminCommands(
    root,
    commands,
    () => valuesOf(store, read),
    (code) => {
      process.exitCode = code;
    },
  );
  root.helpCommand("help [command]", "print the help of a command");
  // The commands above keep their usage after an error (a dozen lines, inherited when created);
  // the server's own runs to 100+, which would bury the one line saying what is wrong.
  root.showHelpAfterError(HELP_POINTER);
  return root;
}

/**
 * A setting's value from its variable, else its default (see `fromEnvironment`).
 * @throws CommanderError (through `command.error`) for a malformed value.
 */
function environmentValue(setting: Setting<unknown>, env: Environment, command: Command): unknown {
  try {
    return fromEnvironment(setting, env);
  } catch (error) {
    if (!(error instanceof InvalidSetting)) throw error;
    return command.error(error.message, { exitCode: 2, code: "commander.invalidArgument" });
  }
}
