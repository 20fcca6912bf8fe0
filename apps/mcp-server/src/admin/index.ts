import { readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { writePrivateFile } from "../files.js";
import { stderrLogger } from "../logger.js";
import type { AdminSettings } from "../options/types.js";
import { findPerson, isPrincipal } from "../team/people.js";
import { hashKey, openStore, StoreUnavailable, type TeamStore } from "../team/store/index.js";
import { keyId, parseKey } from "../team/store/sealed.js";
import { BackupRefused, exportStore, importStore } from "./backup.js";
import { clients, removeRegistered } from "./clients.js";
import { people, person } from "./people.js";
import { revoke } from "./revoke.js";

/** One `toolkits-mcp admin` command line. */
export interface AdminRequest {
  command: "people" | "person" | "revoke" | "clients" | "remove-client" | "export" | "import";
  /** What the command names: a person, a client, a file (`-`: standard output or input). */
  target?: string;
  /** `--json`: one JSON document for scripts instead of tables. */
  json?: boolean;
  /** `import --merge`: write over a store that already holds records. */
  merge?: boolean;
}

/** Where `admin` writes: results to `out`, messages for the person at the terminal to `err`. */
export interface AdminOutput {
  out(text: string): void;
  err(text: string): void;
}

const standard: AdminOutput = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/**
 * Runs one `admin` command on the store the server's own settings name (`MCP_STORE_URL`, else the
 * default file; `MCP_STORE_KEY`, `MCP_STORE_KEY_PREVIOUS`). Resolves to the exit code: 0 done, 1
 * when what it names is not in the store, the store is out of reach, a backup is refused or a
 * provider did not confirm a revocation, 2 when the store key is not set. The file store serves one
 * process: stop the server first (Redis may be used while replicas run).
 */
export async function adminCommand(
  request: AdminRequest,
  settings: AdminSettings,
  output: AdminOutput = standard,
): Promise<number> {
  const { storeKey: key } = settings;
  if (!key) {
    output.err(
      "toolkits-mcp admin works on the server's per-user store: set MCP_STORE_KEY (and MCP_STORE_URL, unless it is the default file) as the server has them.\n",
    );
    return 2;
  }
  const logger = stderrLogger("warn");
  let store: TeamStore;
  try {
    const url = settings.storeUrl || pathToFileURL(settings.storePath).href;
    store = await openStore({ url, key, previousKey: settings.storeKeyPrevious }, logger);
  } catch (error) {
    output.err(`toolkits-mcp admin: ${(error as Error).message}\n`);
    return 1;
  }
  try {
    return await run(request, store, settings, output);
  } catch (error) {
    // A file that cannot be read or written says so by its code (ENOENT, EACCES).
    const fileError = typeof (error as NodeJS.ErrnoException).code === "string";
    if (!(error instanceof BackupRefused || error instanceof StoreUnavailable || fileError)) throw error;
    output.err(`toolkits-mcp admin: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await store.close();
  }
}

async function run(request: AdminRequest, store: TeamStore, settings: AdminSettings, output: AdminOutput) {
  const { command, target = "", json = false } = request;
  const missing = (what: string) => {
    output.err(`toolkits-mcp admin: ${what}\n`);
    return 1;
  };
  const nobody = () =>
    missing(
      `nobody in the store matches "${target}": give their principal (<issuer>#<subject> or token:<name>) or the 12-character id log lines show them by; \`toolkits-mcp admin people\` lists everyone.`,
    );
  if (command === "people") output.out(await people(store, json));
  if (command === "clients") output.out(await clients(store, json));
  if (command === "person" || command === "revoke") {
    // A principal given in full names what is left of someone the list no longer holds.
    const named = command === "revoke" && isPrincipal(target) ? hashKey(target) : undefined;
    const hash = (await findPerson(store, target)) ?? named;
    if (!hash) return nobody();
    if (command === "person") output.out(await person(store, hash, json));
    else {
      const upstream = { clients: settings.oauthClients, logger: stderrLogger("warn") };
      const revoked = await revoke(store, hash, target, upstream, json);
      if (!revoked) return nobody();
      output.out(revoked.text);
      if (!revoked.confirmed) return 1;
    }
  }
  if (command === "remove-client") {
    const removed = await removeRegistered(store, target, json);
    if (removed === undefined)
      return missing(
        `no client "${target}" in the store: \`toolkits-mcp admin clients\` lists the registered ones.`,
      );
    output.out(removed);
  }
  if (command === "export" || command === "import") return backup(request, store, settings, output);
  return 0;
}

async function backup(request: AdminRequest, store: TeamStore, settings: AdminSettings, output: AdminOutput) {
  const target = request.target ?? "-";
  const keyIds = [settings.storeKey, settings.storeKeyPrevious]
    .filter((key) => key?.trim())
    .map((key, index) => keyId(parseKey(key ?? "", index ? "MCP_STORE_KEY_PREVIOUS" : "MCP_STORE_KEY")));
  const where = target === "-" ? "standard output" : target;
  if (request.command === "export") {
    const { text, summary } = await exportStore(store, keyIds[0] ?? "");
    if (target === "-") output.out(text);
    else await writePrivateFile(target, text);
    output.err(
      `Exported ${summary.records} records and ${summary.indexes} indexes to ${where}, sealed under the store key ${summary.keyId}: restore them with \`toolkits-mcp admin import\` where MCP_STORE_KEY is that key.\n`,
    );
    return 0;
  }
  const text = target === "-" ? await readStandardInput() : await readFile(target, "utf8");
  const summary = await importStore(store, text, keyIds, request.merge ?? false);
  output.err(`Imported ${summary.records} records and ${summary.indexes} indexes.\n`);
  return 0;
}

async function readStandardInput(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
