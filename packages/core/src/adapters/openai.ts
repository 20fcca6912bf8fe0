import type { CallScope, Host } from "../context.js";
import { invokeTool } from "../invoke.js";
import type { AnyToolDefinition } from "../tool.js";
import { functionNames, inputParameters } from "./names.js";
import { dropAbsentNulls, strictParameters } from "./strict.js";

/** Options of `toFunctionTools` and `toResponsesTools`. */
export interface FunctionToolOptions {
  /**
   * OpenAI strict mode (default false). Each function whose input fits strict mode's subset of JSON
   * Schema is sent with `strict: true` and its parameters rewritten to fit: every property required,
   * optional ones nullable, every object `additionalProperties: false`, defaults moved into the
   * description, unsupported keywords (`minLength`, …) dropped since the tool still validates. A
   * function whose input cannot fit (an open object, a value of no declared type) keeps its usual
   * parameters with `strict: false`.
   */
  strict?: boolean;
}

/** A Chat Completions function tool: one entry of `tools` in `chat.completions.create`. */
export interface FunctionTool {
  type: "function";
  function: {
    name: string;
    description: string;
    parameters: Record<string, unknown>;
    /** Only with the `strict` option: whether this function's parameters are strict. */
    strict?: boolean;
  };
}

/** A Responses API function tool: one entry of `tools` in `responses.create`. */
export interface ResponsesFunctionTool {
  type: "function";
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  strict: boolean;
}

/** One of an assistant message's `tool_calls` in Chat Completions. */
export interface ChatToolCall {
  id: string;
  type: string;
  /** The function call; custom tool calls carry `custom` instead and are none of these tools'. */
  function?: { name: string; arguments: string };
}

/** The answer to one Chat Completions tool call, to append to the next request's `messages`. */
export interface ChatToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}

/**
 * An item of a Responses API `output` (`response.output`). Only `function_call` items
 * (`{type: "function_call", call_id, name, arguments}`) are run; messages, reasoning and the rest
 * are left to the caller.
 */
export interface ResponsesOutputItem {
  type: string;
}

/** The answer to one Responses API function call, to send in the next request's `input`. */
export interface FunctionCallOutput {
  type: "function_call_output";
  call_id: string;
  output: string;
}

/** Runs single function calls; both tool sets have it. */
export interface FunctionCaller {
  /**
   * Runs a function call: `name` as the model sent it (`Pager_ListIncidents`), `args` as its JSON
   * string. A null for an optional parameter counts as not given (strict mode sends those). Resolves
   * to the text to send back: the result JSON, or
   * `{"error":{"kind","message","retryable","retry_after_ms"}}`, naming tools as functions.
   * Never throws.
   */
  call(name: string, args: string, scope?: CallScope): Promise<string>;
}

/** The tools for Chat Completions, and ways to run the model's tool calls. */
export interface FunctionToolSet extends FunctionCaller {
  tools: FunctionTool[];
  /**
   * Runs the function calls of an assistant message (`message.tool_calls`; null or undefined for
   * none) concurrently and resolves to one `{role: "tool", tool_call_id, content}` message per call,
   * in order. Custom tool calls are skipped. Never throws: failures, and names no tool has, are
   * answered with the error JSON of `call`, since the API wants an answer to every call.
   */
  runCalls(
    toolCalls: readonly ChatToolCall[] | null | undefined,
    scope?: CallScope,
  ): Promise<ChatToolMessage[]>;
}

/** The tools for the Responses API, and ways to run the model's function calls. */
export interface ResponsesToolSet extends FunctionCaller {
  tools: ResponsesFunctionTool[];
  /**
   * Runs the `function_call` items of a response's `output` concurrently and resolves to one
   * `{type: "function_call_output", call_id, output}` item per call, in order. Never throws:
   * failures, and names no tool has, are answered with the error JSON of `call`.
   */
  runCalls(output: readonly ResponsesOutputItem[], scope?: CallScope): Promise<FunctionCallOutput[]>;
}

/**
 * Adapts tools to OpenAI Chat Completions function calling (`tools` of `chat.completions.create`):
 * names mapped to `[a-zA-Z0-9_-]{1,64}` (dots are not allowed there) and back, input schemas as
 * JSON Schema, strict mode on request, credentials and settings from `host`.
 * @throws Error when two tools would share a function name.
 */
export function toFunctionTools(
  tools: readonly AnyToolDefinition[],
  host: Host,
  options: FunctionToolOptions = {},
): FunctionToolSet {
  const { functions, call } = prepare(tools, host, options);
  return {
    // Without the option `strict` is left out, so the API applies its own default.
    tools: functions.map(({ strict, ...definition }) => ({
      type: "function",
      function: options.strict ? { ...definition, strict } : definition,
    })),
    call,
    runCalls: (toolCalls, scope) =>
      Promise.all(
        (toolCalls ?? []).flatMap(({ id, function: called }) =>
          called ? [answerChat(id, call(called.name, called.arguments, scope))] : [],
        ),
      ),
  };
}

/**
 * Adapts tools to the OpenAI Responses API (`tools` of `responses.create`): the same functions as
 * `toFunctionTools` in the Responses shape, `strict` always stated.
 * @throws Error when two tools would share a function name.
 */
export function toResponsesTools(
  tools: readonly AnyToolDefinition[],
  host: Host,
  options: FunctionToolOptions = {},
): ResponsesToolSet {
  const { functions, call } = prepare(tools, host, options);
  return {
    tools: functions.map((definition) => ({ type: "function", ...definition })),
    call,
    runCalls: (output, scope) =>
      Promise.all(
        output
          .filter(isFunctionCall)
          .map(({ call_id, name, arguments: args }) => answerResponses(call_id, call(name, args, scope))),
      ),
  };
}

interface PreparedFunction {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  strict: boolean;
}

/** The function definitions, in either API's terms, and the call that runs one. */
function prepare(
  tools: readonly AnyToolDefinition[],
  host: Host,
  options: FunctionToolOptions,
): { functions: PreparedFunction[]; call: FunctionCaller["call"] } {
  const names = functionNames(tools);
  const inputs = new Map<AnyToolDefinition, Record<string, unknown>>();
  const functions = names.functions.map(({ name, description, tool }) => {
    const parameters = inputParameters(tool, names.rewrite);
    inputs.set(tool, parameters);
    const strict = options.strict ? strictParameters(parameters) : undefined;
    return { name, description, parameters: strict ?? parameters, strict: strict !== undefined };
  });
  const call = async (name: string, args: string, scope?: CallScope) => {
    const tool = names.toTool(name);
    if (!tool) return errorJson("invalid_input", `No function named ${name}.`, false);
    let parsed: unknown;
    try {
      parsed = args.trim() ? JSON.parse(args) : {};
    } catch {
      return errorJson("invalid_input", `The arguments of ${name} are not valid JSON.`, false);
    }
    const outcome = await invokeTool(tool, dropAbsentNulls(parsed, inputs.get(tool)), host, scope);
    if (outcome.ok) return names.rewrite(JSON.stringify(outcome.result));
    const { kind, message, retryable, retryAfterMs } = outcome.error;
    return errorJson(kind, names.rewrite(message), retryable, retryAfterMs);
  };
  return { functions, call };
}

async function answerChat(id: string, content: Promise<string>): Promise<ChatToolMessage> {
  return { role: "tool", tool_call_id: id, content: await content };
}

async function answerResponses(callId: string, output: Promise<string>): Promise<FunctionCallOutput> {
  return { type: "function_call_output", call_id: callId, output: await output };
}

interface FunctionCallItem {
  type: "function_call";
  call_id: string;
  name: string;
  arguments: string;
}

function isFunctionCall(item: ResponsesOutputItem): item is FunctionCallItem {
  const { call_id, name, arguments: args } = item as Partial<FunctionCallItem>;
  return (
    item.type === "function_call" &&
    typeof call_id === "string" &&
    typeof name === "string" &&
    typeof args === "string"
  );
}

function errorJson(kind: string, message: string, retryable: boolean, retryAfterMs?: number): string {
  return JSON.stringify({ error: { kind, message, retryable, retry_after_ms: retryAfterMs } });
}
