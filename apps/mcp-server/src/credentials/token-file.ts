import { mkdir, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { lazy, ToolError } from "@toolkits/core";
import type { LockOptions } from "proper-lockfile";
import { z } from "zod";
import { writePrivateFile, xdgFile } from "../files.js";
import { type GrantOf, type GrantRecord, grantOf, recordOf } from "./grant.js";
import type { OAuthProviderId } from "./providers.js";
import type { GrantStore, Release } from "./store.js";

/**
 * One provider's grant as the file holds it (version 1: RFC 6749's names, epoch milliseconds). The
 * schemas are built on the first read of the file, not while the server starts.
 */
const recordSchema = () =>
  z.object({
    access_token: z.string().min(1),
    refresh_token: z.string().min(1).optional(),
    expires_at: z.number().int().optional(),
    scopes: z.array(z.string()),
    token_type: z.string(),
    /** When the account was signed in to. */
    obtained_at: z.number().int(),
    server: z.object({
      issuer: z.string(),
      token_endpoint: z.string(),
      revocation_endpoint: z.string().optional(),
    }),
    // The client's secret is kept with its tokens: the MCP server refreshes them without the OAuth
    // settings in its own environment.
    client: z.object({ id: z.string(), secret: z.string().optional() }),
  });

type FileRecord = z.infer<ReturnType<typeof recordSchema>>;

/** The file's text, read as JSON and checked; Zod's messages name the path and type, never a value. */
const fileText = lazy(() =>
  z
    .string()
    .transform((text, context) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        context.addIssue({ code: "custom", message: "not JSON" });
        return z.NEVER;
      }
    })
    .pipe(z.object({ version: z.literal(1), providers: z.record(z.string(), recordSchema()) })),
);

/** The file's name of each grant field it keeps, in the order it writes them. */
const FIELDS = [
  ["accessToken", "access_token"],
  ["refreshToken", "refresh_token"],
  ["expiresAt", "expires_at"],
  ["scopes", "scopes"],
  ["tokenType", "token_type"],
  ["connectedAt", "obtained_at"],
  ["server", "server"],
] as const;

/**
 * The `login` token file: `$XDG_CONFIG_HOME/toolkits-mcp/tokens.json`, or
 * `~/.config/toolkits-mcp/tokens.json` when `XDG_CONFIG_HOME` is unset or not absolute.
 */
export function tokenFilePath(env: Readonly<Record<string, string | undefined>>): string {
  return xdgFile(env, "XDG_CONFIG_HOME", "tokens.json");
}

/**
 * The grants `toolkits-mcp login` made, in one JSON file (version 1), mode 0600 in a 0700
 * directory, replaced atomically (a temporary file, then a rename) so a reader never sees half a
 * file. Every read goes to the file, so a `login` in another process is seen at once. Changes are
 * made under a file lock (`tokens.json.lock`), so processes sharing the file never lose each
 * other's; refreshes take one lock per provider (`tokens.json.<provider>.lock`), as a refresh token
 * may be used once only. Reads reject with ToolError `unauthenticated` naming the file when it is
 * not a valid token file.
 */
export class TokenFile implements GrantStore<OAuthProviderId> {
  /** Serializes this process's read-modify-write cycles. */
  #writing: Promise<unknown> = Promise.resolve();

  constructor(readonly path: string) {}

  get id(): string {
    return this.path;
  }

  async get<P extends OAuthProviderId>(provider: P): Promise<GrantOf<P> | undefined> {
    const record = (await this.#read())[provider];
    return record && (grantOf(fromFile(provider, record)) as GrantOf<P>);
  }

  save(grant: GrantOf<OAuthProviderId>): Promise<void> {
    return this.#update((records) => {
      records[grant.provider] = toFile(recordOf(grant));
      return true;
    });
  }

  async remove<P extends OAuthProviderId>(provider: P): Promise<GrantOf<P> | undefined> {
    let removed: GrantOf<P> | undefined;
    await this.#update((records) => {
      const record = records[provider];
      removed = record && (grantOf(fromFile(provider, record)) as GrantOf<P>);
      delete records[provider];
      return record !== undefined;
    });
    return removed;
  }

  async lock(provider: OAuthProviderId, ttlMs: number): Promise<Release | undefined> {
    try {
      return await fileLock(`${this.path}.${provider}.lock`, { stale: ttlMs, retries: 0 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ELOCKED") return undefined;
      throw error;
    }
  }

  #update(change: (records: Record<string, FileRecord>) => boolean): Promise<void> {
    const next = this.#writing.then(async () => {
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      // Held for one read and one write: milliseconds, so waiting a second is plenty.
      const release = await fileLock(`${this.path}.lock`, {
        retries: { retries: 20, minTimeout: 10, maxTimeout: 100 },
      });
      try {
        const records = await this.#read();
        if (change(records)) await this.#write(records);
      } finally {
        await release();
      }
    });
    this.#writing = next.catch(() => {});
    return next;
  }

  async #read(): Promise<Record<string, FileRecord>> {
    const text = await readFile(this.path, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw unreadable(`Cannot read the token store ${this.path}: ${error.code ?? error.message}.`, error);
    });
    if (text === undefined) return {};
    const parsed = fileText().safeParse(text);
    if (parsed.success) return parsed.data.providers;
    const issue = parsed.error.issues[0];
    const reason = issue?.path.length ? `${issue.path.join(".")}: ${issue.message}` : (issue?.message ?? "");
    throw unreadable(
      `The token store ${this.path} is not valid (${reason}). Delete it and run \`toolkits-mcp login <provider>\` again.`,
    );
  }

  #write(records: Record<string, FileRecord>): Promise<void> {
    return writePrivateFile(this.path, `${JSON.stringify({ version: 1, providers: records }, null, 2)}\n`);
  }
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

function fromFile(provider: OAuthProviderId, record: FileRecord): GrantRecord {
  const grant: Record<string, unknown> = { provider };
  for (const [ours, theirs] of FIELDS) grant[ours] = record[theirs];
  return {
    ...(grant as Omit<GrantRecord, "clientId">),
    clientId: record.client.id,
    clientSecret: record.client.secret,
  };
}

function toFile(grant: GrantRecord): FileRecord {
  const record: Record<string, unknown> = {};
  for (const [ours, theirs] of FIELDS) record[theirs] = grant[ours];
  return {
    ...(record as Omit<FileRecord, "client">),
    client: { id: grant.clientId ?? "", secret: grant.clientSecret },
  };
}
