import { lazy } from "@toolkits/core";
import { z } from "zod";
import type { GrantRecord } from "./grant.js";
import { isLabel, LABEL_FORM, labelCandidates } from "./labels.js";
import type { OAuthProviderId } from "./providers.js";

/**
 * One account's grant as the file holds it (RFC 6749's names, epoch milliseconds; the same in
 * versions 1 and 2). The schemas are built on the first read of the file, not while the server starts.
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
    /** Who the provider says the account is (an e-mail address), when it said. */
    account: z.string().optional(),
    server: z.object({
      issuer: z.string(),
      token_endpoint: z.string(),
      revocation_endpoint: z.string().optional(),
    }),
    // The client's secret is kept with its tokens: the MCP server refreshes them without the OAuth
    // settings in its own environment.
    client: z.object({ id: z.string(), secret: z.string().optional() }),
  });

export type FileRecord = z.infer<ReturnType<typeof recordSchema>>;

/** One provider's accounts (version 2): each by its label, and which is the default. */
export interface FileAccounts {
  default: string;
  accounts: Record<string, FileRecord>;
}

/** The file's accounts, by provider. */
export type FileProviders = Partial<Record<OAuthProviderId, FileAccounts>>;

const label = () => z.string().refine(isLabel, { message: `not a label (${LABEL_FORM})` });

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
    .pipe(
      z.discriminatedUnion("version", [
        z.object({ version: z.literal(1), providers: z.record(z.string(), recordSchema()) }),
        z.object({
          version: z.literal(2),
          providers: z.record(
            z.string(),
            z.object({ default: label(), accounts: z.record(label(), recordSchema()) }),
          ),
        }),
      ]),
    ),
);

/**
 * The accounts of a token file's `text`, in version 2's shape: a version-1 file (one grant per
 * provider) holds each provider's single account, labelled from its account name or `default`.
 * Providers without accounts are left out.
 * @throws Error saying what is wrong (a path and what was expected, never a value).
 */
export function parseTokenFile(text: string): FileProviders {
  const parsed = fileText().safeParse(text);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      issue?.path.length ? `${issue.path.join(".")}: ${issue.message}` : (issue?.message ?? ""),
    );
  }
  const providers: Record<string, FileAccounts> = {};
  if (parsed.data.version === 1) {
    for (const [provider, record] of Object.entries(parsed.data.providers)) {
      const only = labelCandidates(record.account)[0] as string;
      providers[provider] = { default: only, accounts: { [only]: record } };
    }
    return providers;
  }
  for (const [provider, entry] of Object.entries(parsed.data.providers)) {
    const labels = Object.keys(entry.accounts);
    if (!labels.length) continue;
    // A default naming no account (a hand edit) falls to the first account.
    providers[provider] = labels.includes(entry.default) ? entry : { ...entry, default: labels[0] as string };
  }
  return providers;
}

/** The text of a version-2 file holding `providers`. */
export const tokenFileText = (providers: FileProviders): string =>
  `${JSON.stringify({ version: 2, providers }, null, 2)}\n`;

/** The file's name of each grant field it keeps, in the order it writes them. */
const FIELDS = [
  ["accessToken", "access_token"],
  ["refreshToken", "refresh_token"],
  ["expiresAt", "expires_at"],
  ["scopes", "scopes"],
  ["tokenType", "token_type"],
  ["connectedAt", "obtained_at"],
  ["account", "account"],
  ["server", "server"],
] as const;

/** The grant record of the account `label` at `provider` as the file holds it. */
export function fromFile(provider: OAuthProviderId, label: string, record: FileRecord): GrantRecord {
  const grant: Record<string, unknown> = { provider, label };
  for (const [ours, theirs] of FIELDS) grant[ours] = record[theirs];
  return {
    ...(grant as Omit<GrantRecord, "clientId">),
    clientId: record.client.id,
    clientSecret: record.client.secret,
  };
}

/** A grant record as the file holds it (its label is the key it is kept under). */
export function toFile(grant: GrantRecord): FileRecord {
  const record: Record<string, unknown> = {};
  for (const [ours, theirs] of FIELDS) record[theirs] = grant[ours];
  return {
    ...(record as Omit<FileRecord, "client">),
    client: { id: grant.clientId ?? "", secret: grant.clientSecret },
  };
}
