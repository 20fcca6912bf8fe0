import type { Command } from "commander";
import type { AdminRequest, Commands } from "./types.js";

/** The `admin` commands: each reads the store the server's settings name (see `admin/index.ts`). */
const COMMANDS: readonly {
  name: AdminRequest["command"];
  argument?: [string, string];
  description: string;
  json?: boolean;
}[] = [
  {
    name: "people",
    description: "everyone the server knows: connections, authorised clients, last call",
    json: true,
  },
  {
    name: "person",
    argument: ["<id>", "their principal (<issuer>#<subject>, token:<name>) or the id log lines show"],
    description: "one person: connections (account, scopes, last use), authorised clients, sessions",
    json: true,
  },
  {
    name: "revoke",
    argument: ["<person>", "their principal or the id log lines show"],
    description:
      "end everything of one person at once: grants, refresh tokens, consents, sessions, connect links, and their upstream connections, revoked at each provider that offers revocation",
    json: true,
  },
  { name: "clients", description: "the clients that registered themselves, with their last use", json: true },
  {
    name: "remove-client",
    argument: ["<client-id>", "the client's id"],
    description: "remove a client: its grants end, and a registered one must register again",
    json: true,
  },
  {
    name: "export",
    argument: ["<file>", "where to write (- for standard output)"],
    description: "back up the whole store: its records as stored, still sealed under MCP_STORE_KEY",
  },
  {
    name: "import",
    argument: ["<file>", "a backup `admin export` wrote (- for standard input)"],
    description: "restore a backup into the store (file or Redis) with the same MCP_STORE_KEY",
  },
];

const ABOUT = `
Works on the store the server's own settings name: MCP_STORE_URL (else the default file),
MCP_STORE_KEY and MCP_STORE_KEY_PREVIOUS, and the providers' OAuth clients to revoke at.
The file store serves one process: stop the server first. Redis may be used while replicas run.`;

/**
 * Adds `admin` and its commands to `root`. `settings` reads the server's store settings when one
 * runs; `exit` takes the exit code it resolves to.
 */
export function adminCommands(
  root: Command,
  commands: Commands,
  settings: () => Parameters<Commands["admin"]>[1],
  exit: (code: number) => void,
): void {
  const admin = root
    .command("admin")
    .description("look after a per-user deployment's store: people, clients, revocation, backups")
    .addHelpText("after", ABOUT);
  for (const spec of COMMANDS) {
    const command = admin.command(spec.name).description(spec.description);
    if (spec.argument) command.argument(...spec.argument);
    if (spec.json) command.option("--json", "one JSON document, for scripts");
    if (spec.name === "import")
      command.option("--merge", "write the backup's records over a store that already holds some");
    command.action(async (...args: unknown[]) => {
      const target = spec.argument ? (args[0] as string) : undefined;
      const values = (spec.argument ? args[1] : args[0]) as { json?: boolean; merge?: boolean };
      exit(await commands.admin({ command: spec.name, target, ...values }, settings()));
    });
  }
}
