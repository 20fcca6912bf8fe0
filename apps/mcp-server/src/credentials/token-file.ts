import { mkdir, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { ToolError } from "@toolkits/core";
import type { LockOptions } from "proper-lockfile";
import { writePrivateFile, xdgFile } from "../files.js";
import { type GrantOf, grantOf, recordOf } from "./grant.js";
import { labelFor } from "./labels.js";
import type { OAuthProviderId } from "./providers.js";
import { type GrantStore, REFRESH_LOCK_MS, type Release, whileNotRefreshing } from "./store.js";
import {
  type FileAccounts,
  type FileProviders,
  type FileRecord,
  fromFile,
  parseTokenFile,
  toFile,
  tokenFileText,
} from "./token-file-format.js";

/**
 * The `login` token file: `$XDG_CONFIG_HOME/toolkits-mcp/tokens.json`, or
 * `~/.config/toolkits-mcp/tokens.json` when `XDG_CONFIG_HOME` is unset or not absolute.
 */
export function tokenFilePath(env: Readonly<Record<string, string | undefined>>): string {
  return xdgFile(env, "XDG_CONFIG_HOME", "tokens.json");
}

/**
 * The grants `toolkits-mcp login` made, in one JSON file, mode 0600 in a 0700 directory, replaced
 * atomically (a temporary file, then a rename) so a reader never sees half a file. Version 2 keeps
 * each provider's accounts by label with its default (token-file-format.ts); a version-1 file (one
 * account per provider) is read as each provider's single account and written as version 2 on the
 * next change. Every read goes to the file, so a `login` in another process is seen at once.
 * Changes are made under a file lock (`tokens.json.lock`), so processes sharing the file never lose
 * each other's; refreshes take one lock per account (`tokens.json.<provider>.<label>.lock`), as a
 * refresh token may be used once only. Reads reject with ToolError `unauthenticated` naming the
 * file when it is not a valid token file.
 */
export class TokenFile implements GrantStore<OAuthProviderId> {
  /** Serializes this process's read-modify-write cycles. */
  #writing: Promise<unknown> = Promise.resolve();

  constructor(readonly path: string) {}

  get id(): string {
    return this.path;
  }

  async get<P extends OAuthProviderId>(provider: P, label?: string): Promise<GrantOf<P> | undefined> {
    const entry = (await this.#read())[provider];
    const chosen = label ?? entry?.default;
    const record = chosen === undefined ? undefined : entry?.accounts[chosen];
    return record && (grantOf(fromFile(provider, chosen as string, record)) as GrantOf<P>);
  }

  async list<P extends OAuthProviderId>(provider: P): Promise<GrantOf<P>[]> {
    const entry = (await this.#read())[provider];
    if (!entry) return [];
    const labels = [entry.default, ...Object.keys(entry.accounts).filter((each) => each !== entry.default)];
    return labels.map(
      (label) => grantOf(fromFile(provider, label, entry.accounts[label] as FileRecord)) as GrantOf<P>,
    );
  }

  async save(grant: GrantOf<OAuthProviderId>): Promise<string> {
    let saved = "";
    await this.#update((providers) => {
      const entry = providers[grant.provider];
      const held = new Map(Object.entries(entry?.accounts ?? {}).map(([label, r]) => [label, r.account]));
      saved = grant.label ?? labelFor(grant.account, held);
      const record = toFile({ ...recordOf(grant), label: saved });
      providers[grant.provider] = entry
        ? { ...entry, accounts: { ...entry.accounts, [saved]: record } }
        : { default: saved, accounts: { [saved]: record } };
      return true;
    });
    return saved;
  }

  async remove<P extends OAuthProviderId>(provider: P, label?: string): Promise<GrantOf<P> | undefined> {
    const target = label ?? (await this.get(provider))?.label;
    if (target === undefined) return undefined;
    return whileNotRefreshing(
      () => this.lock(provider, target, REFRESH_LOCK_MS),
      () => this.#remove(provider, target),
    );
  }

  async #remove<P extends OAuthProviderId>(provider: P, label: string): Promise<GrantOf<P> | undefined> {
    let removed: GrantOf<P> | undefined;
    await this.#update((providers) => {
      const entry = providers[provider];
      const record = entry?.accounts[label];
      if (!entry || !record) return false;
      removed = grantOf(fromFile(provider, label, record)) as GrantOf<P>;
      const rest = withoutAccount(entry, label);
      if (rest) providers[provider] = rest;
      else delete providers[provider];
      return true;
    });
    return removed;
  }

  rename(provider: OAuthProviderId, label: string, to: string): Promise<boolean> {
    return whileNotRefreshing(
      () => this.lock(provider, label, REFRESH_LOCK_MS),
      async () => {
        let renamed = false;
        await this.#update((providers) => {
          const entry = providers[provider];
          const record = entry?.accounts[label];
          if (!entry || !record || entry.accounts[to]) return false;
          const accounts = { ...entry.accounts, [to]: record };
          delete accounts[label];
          providers[provider] = { default: entry.default === label ? to : entry.default, accounts };
          renamed = true;
          return true;
        });
        return renamed;
      },
    );
  }

  async makeDefault(provider: OAuthProviderId, label: string): Promise<boolean> {
    let made = false;
    await this.#update((providers) => {
      const entry = providers[provider];
      made = entry?.accounts[label] !== undefined;
      if (entry && made) providers[provider] = { ...entry, default: label };
      return made;
    });
    return made;
  }

  async lock(provider: OAuthProviderId, label: string, ttlMs: number): Promise<Release | undefined> {
    try {
      return await fileLock(`${this.path}.${provider}.${label}.lock`, { stale: ttlMs, retries: 0 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ELOCKED") return undefined;
      throw error;
    }
  }

  #update(change: (providers: FileProviders) => boolean): Promise<void> {
    const next = this.#writing.then(async () => {
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      // Held for one read and one write: milliseconds, so waiting a second is plenty.
      const release = await fileLock(`${this.path}.lock`, {
        retries: { retries: 20, minTimeout: 10, maxTimeout: 100 },
      });
      try {
        const providers = await this.#read();
        if (change(providers)) await writePrivateFile(this.path, tokenFileText(providers));
      } finally {
        await release();
      }
    });
    this.#writing = next.catch(() => {});
    return next;
  }

  async #read(): Promise<FileProviders> {
    const text = await readFile(this.path, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw unreadable(`Cannot read the token store ${this.path}: ${error.code ?? error.message}.`, error);
    });
    if (text === undefined) return {};
    try {
      return parseTokenFile(text);
    } catch (error) {
      throw unreadable(
        `The token store ${this.path} is not valid (${(error as Error).message}). Delete it and run \`toolkits-mcp login <provider>\` again.`,
      );
    }
  }
}

/**
 * `entry` without the account `label`; a removed default passes to the earliest connected of the
 * rest. `undefined` when no account is left.
 */
function withoutAccount(entry: FileAccounts, label: string): FileAccounts | undefined {
  const { [label]: _gone, ...accounts } = entry.accounts;
  const [first] = Object.entries(accounts).sort(([, a], [, b]) => a.obtained_at - b.obtained_at);
  if (!first) return undefined;
  return { default: entry.default === label ? first[0] : entry.default, accounts };
}

const unreadable = (message: string, cause?: unknown) =>
  new ToolError("unauthenticated", message, { retryable: false, cause });

/**
 * Takes the lock directory `path` (proper-lockfile: it works across processes and machines, and a
 * crashed holder's lock goes stale after `options.stale` ms).
 * @throws Error with code ELOCKED when another holder keeps it past the retries.
 */
async function fileLock(path: string, options: LockOptions): Promise<Release> {
  const { lock } = await import("proper-lockfile");
  // A lock taken over as stale means a refresh may overlap another: a token refreshed twice, which
  // the provider answers or refuses; it is never a reason to stop the server (the default throws).
  return lock(path, { ...options, lockfilePath: path, realpath: false, onCompromised: () => {} });
}
