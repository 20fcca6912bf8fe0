import { InvalidArgumentError, Option } from "commander";
import { type Group, InvalidSetting, type Setting, shownDefault, type ToolkitVariable } from "./setting.js";

/** The help section of a group, as commander titles sections. */
const heading = (group: Group): string => `${group}:`;

/** A setting with a flag, as a commander option: its help ends with its default and variable. */
export function flagOption(setting: Setting<unknown>): Option {
  const shown = shownDefault(setting);
  const notes = [...(shown === undefined ? [] : [`default: ${shown}`]), `env: ${setting.env}`];
  const option = new Option(setting.flag as string, `${setting.help} (${notes.join(", ")})`);
  // Parsed values only: the default and the variable are applied after parsing (program.ts), so
  // that a variable is read from the one copy of the environment and judged by the same parser.
  if (option.required) option.argParser(forCommander(setting.parse));
  return option.helpGroup(heading(setting.group));
}

/**
 * A variable without a flag, as a help row in its group. It is not an option of the command: the
 * help prints an option's `flags` as its term, which here is the variable's name.
 */
export function variableRow(
  group: Group,
  name: string,
  described: Setting<unknown> | ToolkitVariable,
): Option {
  const shown = "parse" in described ? shownDefault(described) : undefined;
  const notes = [
    ...(shown === undefined ? [] : [`default: ${shown}`]),
    ...(described.secret ? ["secret"] : []),
  ];
  const row = new Option(
    "--variable",
    notes.length ? `${described.help} (${notes.join(", ")})` : described.help,
  );
  row.flags = name;
  return row.helpGroup(heading(group));
}

/** A setting's parser as commander takes one: its refusal as commander reports one (naming the flag and the value). */
export function forCommander<T>(parse: (value: string) => T): (value: string) => T {
  return (value) => {
    try {
      return parse(value);
    } catch (error) {
      if (error instanceof InvalidSetting) throw new InvalidArgumentError(error.message);
      throw error;
    }
  };
}
