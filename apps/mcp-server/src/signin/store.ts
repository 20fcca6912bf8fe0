import { readFile } from "node:fs/promises";
import { accessTokenVariable, Secret } from "@toolkits/core";
import { z } from "zod";
import { writePrivateFile, xdgFile } from "../files.js";

/** One provider's sign-in as the file holds it. */
const recordSchema = z.object({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).optional(),
  /** When the access token expires, epoch milliseconds; absent when the server did not say. */
  expires_at: z.number().int().optional(),
  scopes: z.array(z.string()),
  token_type: z.string(),
  /** When the access token was issued, epoch milliseconds. */
  obtained_at: z.number().int(),
  // A refresh token is bound to the server and client that issued it, so the record keeps both:
  // the MCP server refreshes without needing the OAuth settings in its own environment.
  server: z.object({
    issuer: z.string(),
    token_endpoint: z.string(),
    revocation_endpoint: z.string().optional(),
  }),
  client: z.object({ id: z.string(), secret: z.string().optional() }),
});

const fileSchema = z.object({
  version: z.literal(1),
  providers: z.record(z.string(), recordSchema),
});

type StoredRecord = z.infer<typeof recordSchema>;

/** One provider's sign-in in memory: every credential wrapped so it never prints. */
export interface SignIn {
  accessToken: Secret;
  refreshToken: Secret | undefined;
  /** Epoch milliseconds; `undefined` when the server gave no lifetime. */
  expiresAt: number | undefined;
  scopes: string[];
  tokenType: string;
  /** Epoch milliseconds. */
  obtainedAt: number;
  server: StoredRecord["server"];
  client: { id: string; secret: Secret | undefined };
}

/**
 * The token file: `$XDG_CONFIG_HOME/toolkits-mcp/tokens.json`, or `~/.config/toolkits-mcp/tokens.json`
 * when `XDG_CONFIG_HOME` is unset or not absolute (the XDG spec says to ignore a relative one).
 */
export function tokenFilePath(env: NodeJS.ProcessEnv = process.env): string {
  return xdgFile(env, "XDG_CONFIG_HOME", "tokens.json");
}

/**
 * The per-user token store: one JSON file, mode 0600 in a 0700 directory, replaced atomically
 * (a temporary file in the same directory, then a rename) so a reader never sees half a file.
 * Every read goes to the file, so a `login` in another process is seen at once.
 */
export class TokenStore {
  /** Serializes this process's read-modify-write cycles. */
  #writing: Promise<unknown> = Promise.resolve();

  constructor(readonly path: string) {}

  /**
   * Every stored sign-in, by provider id; empty when there is no file yet.
   * @throws Error naming the file when it is not a valid token store.
   */
  async all(): Promise<Record<string, SignIn>> {
    const records = await this.#read();
    return Object.fromEntries(Object.entries(records).map(([id, record]) => [id, fromRecord(id, record)]));
  }

  /** One provider's sign-in, or `undefined`. @throws as `all()`. */
  async get(provider: string): Promise<SignIn | undefined> {
    const record = (await this.#read())[provider];
    return record && fromRecord(provider, record);
  }

  /** Stores (or replaces) one provider's sign-in, keeping the others. */
  put(provider: string, signIn: SignIn): Promise<void> {
    return this.#update((records) => {
      records[provider] = toRecord(signIn);
      return true;
    });
  }

  /** Removes one provider's sign-in; resolves to whether there was one. */
  async remove(provider: string): Promise<boolean> {
    let removed = false;
    await this.#update((records) => {
      removed = Object.hasOwn(records, provider);
      delete records[provider];
      return removed;
    });
    return removed;
  }

  #update(change: (records: Record<string, StoredRecord>) => boolean): Promise<void> {
    const next = this.#writing.then(async () => {
      const records = await this.#read();
      if (change(records)) await this.#write(records);
    });
    this.#writing = next.catch(() => {});
    return next;
  }

  async #read(): Promise<Record<string, StoredRecord>> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException;
      if (code === "ENOENT") return {};
      throw new Error(`Cannot read the token store ${this.path}: ${code ?? message}.`, { cause: error });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw invalidStore(this.path, "not JSON");
    }
    const parsed = fileSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      // Zod's messages name the path and the expected type, never the value (a token).
      throw invalidStore(this.path, issue ? `${issue.path.join(".")}: ${issue.message}` : "unreadable");
    }
    return parsed.data.providers;
  }

  #write(records: Record<string, StoredRecord>): Promise<void> {
    return writePrivateFile(this.path, `${JSON.stringify({ version: 1, providers: records }, null, 2)}\n`);
  }
}

function invalidStore(path: string, reason: string): Error {
  return new Error(
    `The token store ${path} is not valid (${reason}). Delete it and run \`toolkits-mcp login <provider>\` again.`,
  );
}

function fromRecord(provider: string, record: StoredRecord): SignIn {
  const prefix = provider.toUpperCase();
  return {
    accessToken: new Secret(accessTokenVariable(provider), record.access_token),
    refreshToken:
      record.refresh_token === undefined
        ? undefined
        : new Secret(`${prefix}_REFRESH_TOKEN`, record.refresh_token),
    expiresAt: record.expires_at,
    scopes: record.scopes,
    tokenType: record.token_type,
    obtainedAt: record.obtained_at,
    server: record.server,
    client: {
      id: record.client.id,
      secret:
        record.client.secret === undefined
          ? undefined
          : new Secret(`${prefix}_OAUTH_CLIENT_SECRET`, record.client.secret),
    },
  };
}

function toRecord(signIn: SignIn): StoredRecord {
  return {
    access_token: signIn.accessToken.reveal(),
    refresh_token: signIn.refreshToken?.reveal(),
    expires_at: signIn.expiresAt,
    scopes: signIn.scopes,
    token_type: signIn.tokenType,
    obtained_at: signIn.obtainedAt,
    server: signIn.server,
    client: { id: signIn.client.id, secret: signIn.client.secret?.reveal() },
  };
}
