import type { z } from "zod";
import { type CallScope, createContext, type Host, hostFor, needsCredential, runScoped } from "./context.js";
import { ToolError, toToolError } from "./errors.js";
import { capResult, compact, type Truncation } from "./results.js";
import { withSecretScope } from "./secrets.js";
import type { AnyToolDefinition } from "./tool.js";
import { hostFetch } from "./upstream.js";

/** What a call produced: a result object, or the error the caller should see. */
export type ToolOutcome<R = Record<string, unknown>> =
  | { ok: true; result: R }
  | { ok: false; error: ToolError };

/**
 * A tool's result as `invokeTool` returns it: the type of its output schema (null fields dropped),
 * with the marker a result cut at the host's size cap carries.
 */
export type ToolResult<T extends AnyToolDefinition> = z.output<T["output"]> & {
  truncated?: true;
  truncation?: Truncation;
};

/**
 * Runs one tool for any host: validates the arguments (unknown names included), checks credentials,
 * calls the handler, drops null fields and caps the size at `host.maxResultBytes`. With
 * `scope.principal` it runs on that person's view of the host (`host.forPrincipal`), in a secret
 * scope of its own (`withSecretScope`): the credentials it wraps are redacted from its result, its
 * errors and what it logs, and from nothing else. Either way `host.audit` hears of it once it is done.
 * Never throws: every failure comes back as a ToolError with a redacted message.
 */
export async function invokeTool<T extends AnyToolDefinition>(
  tool: T,
  args: unknown,
  host: Host,
  scope: CallScope = {},
): Promise<ToolOutcome<ToolResult<T>>> {
  const view = hostFor(host, scope);
  // Acting as one person, the call keeps the credentials it wraps to its own output (the audit stays out).
  const attempt: typeof run = view === host ? run : (...call) => withSecretScope(() => run(...call));
  const outcome = view.audit
    ? await audited(tool, args, view, scope, attempt)
    : await attempt(tool, args, view, scope);
  for (const observer of observers) observer(tool.name, outcome);
  return outcome as ToolOutcome<ToolResult<T>>;
}

/**
 * Runs the call on `host` (one with `audit`), counting the upstream requests sent through its
 * fetch, then tells `host.audit` of it. Kept apart so calls on a host without `audit` pay nothing.
 */
async function audited(
  tool: AnyToolDefinition,
  args: unknown,
  host: Host,
  scope: CallScope,
  attempt: typeof run,
): Promise<ToolOutcome> {
  const started = performance.now();
  let upstreamRequests = 0;
  const send = hostFetch(host);
  const counted: Host = {
    ...host,
    fetch: (input, init) => {
      upstreamRequests++;
      return send(input, init);
    },
  };
  const outcome = await attempt(tool, args, counted, scope);
  host.audit?.({
    tool: tool.name,
    principal: scope.principal,
    outcome: outcome.ok ? "ok" : outcome.error.kind,
    durationMs: performance.now() - started,
    upstreamRequests,
  });
  return outcome;
}

/** Receives every outcome `invokeTool` produces, e.g. a test suite's leak scan. Must not throw. */
export type OutcomeObserver = (tool: string, outcome: ToolOutcome) => void;

const observers = new Set<OutcomeObserver>();

/**
 * Test hook: calls `observer` with every tool outcome in this process (whatever the adapter)
 * until the returned function is called.
 */
export function observeToolOutcomes(observer: OutcomeObserver): () => void {
  observers.add(observer);
  return () => observers.delete(observer);
}

async function run(
  tool: AnyToolDefinition,
  args: unknown,
  host: Host,
  scope: CallScope,
): Promise<ToolOutcome> {
  try {
    await host.ready?.();
    const input = parseArguments(tool, args);
    const context = createContext(host, tool.auth, scope);
    // Checked before the handler runs, so a missing credential never costs an upstream call.
    if (needsCredential(tool.auth)) await context.credential();
    // Nothing a handler started (requests sent side by side, say) outlives its answer.
    const raw = await runScoped(context, (scoped) => tool.handler(input, scoped), scope.abort);
    const compacted = compact(raw) as Record<string, unknown>;
    // Its own top-level object, whatever the handler kept: the result's JSON text is remembered by it.
    const result = compacted === raw ? { ...compacted } : compacted;
    return { ok: true, result: host.maxResultBytes ? capResult(result, host.maxResultBytes) : result };
  } catch (error) {
    const failure = toToolError(error);
    if (failure.kind === "upstream_error" && !(error instanceof ToolError)) {
      host.logger.error("tool failed unexpectedly", { tool: tool.name, error: failure.message });
    }
    return { ok: false, error: failure };
  }
}

/**
 * Validates arguments against the tool's input schema.
 * @throws ToolError `invalid_input` naming every bad or unknown parameter and what is allowed.
 */
export function parseArguments(tool: AnyToolDefinition, args: unknown): Record<string, unknown> {
  const given = args ?? {};
  const schema = tool.input as z.ZodObject;
  if (typeof given === "object" && !Array.isArray(given)) {
    const known = Object.keys(schema.shape);
    const unknown = Object.keys(given).filter((name) => !known.includes(name));
    if (unknown.length) {
      const allowed = known.length ? `Allowed: ${known.join(", ")}.` : "It takes no parameters.";
      throw new ToolError("invalid_input", `${tool.name} has no parameter ${unknown.join(", ")}. ${allowed}`);
    }
  }
  const parsed = schema.safeParse(given);
  if (parsed.success) return parsed.data as Record<string, unknown>;
  const problems = parsed.error.issues.map((issue) => {
    const name = issue.path.length ? issue.path.join(".") : "arguments";
    return `${name}: ${issue.message}`;
  });
  throw new ToolError("invalid_input", `Invalid arguments for ${tool.name}: ${problems.join("; ")}.`);
}
