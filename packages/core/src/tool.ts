import type { z } from "zod";
import type { Logger } from "./logger.js";
import type { Secret } from "./secrets.js";
import type { StateStore } from "./state.js";
import type { UpstreamFetch, UpstreamLimits } from "./upstream.js";

/**
 * Behaviour hints, always all four (MCP's defaults are the pessimistic opposite).
 * They inform clients; they enforce nothing.
 */
export interface ToolHints {
  /** Reads only; never changes upstream state. */
  readOnly: boolean;
  /** May delete or overwrite data. Meaningful only when not read-only. */
  destructive: boolean;
  /** Repeating the same call has no further effect. */
  idempotent: boolean;
  /** Talks to an external system. */
  openWorld: boolean;
}

/**
 * The one credential a tool needs, stated once in its definition; checked before any upstream call
 * and handed to the tool as `context.credential()`.
 */
export interface AuthRequirement {
  /** An OAuth provider id (`pager`, `google`) and the scopes the tool's calls need. */
  oauth?: { provider: string; scopes: readonly string[] };
  /**
   * A named secret, e.g. `MARKETING_API_KEY`; next to `oauth`, one that may stand in for its token
   * when there is none (a classic API token).
   */
  secret?: string;
}

/**
 * A credential as a tool receives it: an OAuth access token, or a named secret. `settings` are those
 * that belong with the credential rather than with the host (`MARKETING_REGION`: the region of the
 * workspace a key opens); for requests made with it they win over `context.setting`.
 */
export type Credential =
  | { kind: "token"; provider: string; value: Secret; settings?: Readonly<Record<string, string>> }
  | { kind: "secret"; name: string; value: Secret; settings?: Readonly<Record<string, string>> };

/** Progress of a long call: `progress` rises monotonically, `total` when known. */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * Everything a handler may use from its host. Made per call by whoever hosts the tools
 * (the MCP server, a test, another agent framework).
 */
export interface ToolContext {
  /**
   * The credential the calling tool declared in `auth`: its OAuth access token, or else the secret
   * that stands in for it. Looked up once per call.
   * @throws ToolError `unauthenticated` saying how to supply it (sign in, or set a variable).
   */
  credential(): Promise<Credential>;
  /** A non-secret setting such as `PAGER_REGION`; `undefined` when unset. */
  setting(name: string): string | undefined;
  /** Aborted when the caller cancels; pass it to every upstream request. */
  signal: AbortSignal;
  /** Reports progress to the caller; a no-op when the caller did not ask for progress. */
  progress(update: ProgressUpdate): void;
  logger: Logger;
  /**
   * The fetch every upstream request goes through: the network, or a sandbox's fakes. Core's
   * clients pass it the rate budget each request counts against (`UpstreamInit.budget`).
   */
  fetch: UpstreamFetch;
  /**
   * The host's cap on a result's JSON size, in bytes, when it has one. Tools that cut their own
   * results with a precise way to continue (e.g. the next row) stay under it.
   */
  maxResultBytes?: number;
  /**
   * The host's limits on upstream exchanges (time per attempt, bytes per answer, redirects), for
   * the toolkit's client to pass on to core's upstream policy; unset ones take its defaults.
   */
  upstream?: Partial<UpstreamLimits>;
  /** State kept between requests, shared by every replica of the server (see `Host.state`). */
  state: StateStore;
}

/**
 * One tool, independent of any transport.
 *
 * @typeParam I zod object of the arguments (flat: no nested `$ref`s on the wire).
 * @typeParam O zod object of the result, sent as MCP `structuredContent`.
 */
export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  /** Canonical name, `<Toolkit>.<Verb><Noun>`, e.g. `Pager.ListIncidents`. */
  name: string;
  /** Short human title. */
  title: string;
  /** What a model needs to choose and call the tool: purpose, units, ranges, paging. */
  description: string;
  input: I;
  output: O;
  hints: ToolHints;
  auth: AuthRequirement;
  /** Area within a toolkit (e.g. `segments`), for toolset filtering. */
  toolset?: string;
  /** Runs the tool on validated input. Throws ToolError for anything the model should read. */
  handler(input: z.output<I>, context: ToolContext): Promise<z.input<O>>;
}

/** A tool definition with its types erased, for registries. */
// biome-ignore lint/suspicious/noExplicitAny: handlers are checked where each tool is defined
export type AnyToolDefinition = ToolDefinition<any, any>;

/**
 * A tool as written: its `input` and `output` schemas, or functions building them. Built on first
 * read, a toolkit's schemas cost nothing when it is loaded: a server lists tools from a prebuilt
 * listing and needs a tool's schemas only once the tool is called.
 */
export type ToolSpec<I extends z.ZodObject, O extends z.ZodObject> = Omit<
  ToolDefinition<I, O>,
  "input" | "output"
> & { input: I | (() => I); output: O | (() => O) };

/**
 * The definition of `spec`, inferring its input and output types. A schema given as a function is
 * built on the first read of `input` or `output` (once), not here.
 */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  spec: ToolSpec<I, O>,
): ToolDefinition<I, O> {
  const { input, output } = spec;
  if (typeof input !== "function" && typeof output !== "function") return spec as ToolDefinition<I, O>;
  const read = <S>(schema: S | (() => S)) =>
    ({
      get: typeof schema === "function" ? lazy(schema as () => S) : () => schema,
      enumerable: true,
    }) as const;
  return Object.defineProperties({ ...spec }, { input: read(input), output: read(output) }) as ToolDefinition<
    I,
    O
  >;
}

/**
 * A function returning what `build` returns, built on its first call and the same value after (a
 * `build` that throws is not remembered: the next call builds again). For schemas shared by
 * several tools, each built inside the tools' own schema functions (see `defineTool`).
 */
export function lazy<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}

/** The hints every read-only upstream tool shares. */
export const READ_ONLY_HINTS: ToolHints = Object.freeze({
  readOnly: true,
  destructive: false,
  idempotent: true,
  openWorld: true,
});

/** Fake credentials and upstream handlers that let a toolkit run with no account. */
export interface Sandbox {
  /** msw request handlers standing in for the upstream (typed loosely so core needs no msw). */
  handlers: readonly unknown[];
  /** Credentials the fake accepts, by secret name and by OAuth provider id. */
  secrets?: Readonly<Record<string, string>>;
  tokens?: Readonly<Record<string, string>>;
  /** Settings the toolkit needs to run against the fake (e.g. a picker configuration). */
  settings?: Readonly<Record<string, string>>;
}

/** What a host gives a toolkit's pages besides the request. */
export interface PageServices {
  /**
   * The same store the toolkit's tools see as `context.state`. A host shared by several people who
   * each act as themselves (see `Host.forPrincipal`) gives each person's tools a store of their own,
   * and serves pages only to a browser signed in as one of them, with that person's store: a page
   * finds only what that person's tools put there.
   */
  state: StateStore;
}

/**
 * A limit an upstream puts on requests, as it documents it: at most `requests` per `periodS`
 * seconds. A host acting for many people (`Host.forPrincipal`) enforces it for each of them.
 */
export interface RateBudget {
  /** Unique across toolkits; operators name it to change its limit (`pager`, `sheets-read`). */
  readonly name: string;
  readonly requests: number;
  readonly periodS: number;
  /**
   * What the upstream counts per: each `user` (all their credentials together), or each
   * `credential` (an API key, which several people may share).
   */
  readonly per: "user" | "credential";
}

/**
 * An upstream API a toolkit calls: where it answers and the rate budgets its requests count
 * against. Each request names its budget to the host's fetch (`UpstreamInit.budget`), so a host
 * need not tell requests apart by their URLs.
 */
export interface UpstreamApi {
  /** Its name for people, e.g. `PagerDuty REST API v2`. */
  readonly title: string;
  /**
   * Its origins by region, the default region first: `{ us: "https://api.pagerduty.com", eu: … }`;
   * one keyed `global` for an API without regions.
   */
  readonly origins: Readonly<Record<string, string>>;
  /** The budgets its requests count against; empty when it sets none per user or key. */
  readonly budgets: readonly RateBudget[];
}

/** A toolkit as a host composes it. */
export interface Toolkit {
  /** Short id used on the command line: `pager`, `sheets`, `marketing`. */
  id: string;
  title: string;
  tools: readonly AnyToolDefinition[];
  /** One sentence on configuring credentials, shown when they are missing. */
  setup: string;
  /** The upstream APIs its tools call, with their origins and rate budgets. */
  upstreams?: readonly UpstreamApi[];
  /** Loads the toolkit's fake upstream; imported lazily so normal runs never load msw. */
  sandbox(): Promise<Sandbox>;
  /**
   * Web pages the toolkit serves to the user's browser (e.g. a file picker), fetch-style. The host
   * passes only requests under `pagesPath` and serves them outside MCP authentication, at the base
   * URL it gives tools as the `TOOLKITS_PUBLIC_URL` setting.
   */
  pages?(request: Request, services: PageServices): Promise<Response | undefined>;
  /** The path prefix all of `pages` live under, e.g. `/sheets/picker/`. */
  pagesPath?: string;
}
