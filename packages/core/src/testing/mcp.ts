import {
  Client,
  type JsonSchemaType,
  type JsonSchemaValidator,
  type Progress,
} from "@modelcontextprotocol/client";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import type { Host } from "../context.js";
import { createMcpServer, createToolRegistry, type RegistryOptions } from "../mcp/index.js";
import type { AnyToolDefinition } from "../tool.js";

/** What the model sees of one call: the error flag, the text and the structured result. */
export interface SeenResult {
  isError: boolean;
  text: string;
  data: Record<string, unknown> | undefined;
  /** Size of the text, in bytes, as it goes over the wire. */
  bytes: number;
}

/**
 * The structured result of a call that succeeded.
 * @throws Error with the tool's error text when the call failed, so the test reads why.
 */
export function okData(result: SeenResult): Record<string, unknown> {
  if (result.isError) throw new Error(`the tool failed: ${result.text}`);
  return result.data ?? {};
}

/** The protocol revision a test client speaks: 2026-07-28 (`modern`) or 2025-11-25 (`legacy`). */
export type ProtocolEra = "modern" | "legacy";

/** An MCP client connected in memory to a server with `tools` served from `host`. */
export interface ToolClient {
  client: Client;
  call(
    name: string,
    args?: Record<string, unknown>,
    options?: { signal?: AbortSignal; onprogress?: (progress: Progress) => void },
  ): Promise<SeenResult>;
  close(): Promise<void>;
}

/**
 * The SDK client's own output-schema validation, compiled once per schema for the whole process:
 * a client compiles a validator per tool on its first call, which costs more than the call itself
 * when a suite connects afresh for every test (115 marketing tools).
 */
class SharedValidators extends AjvJsonSchemaValidator {
  readonly #compiled = new Map<string, JsonSchemaValidator<unknown>>();

  override getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const key = JSON.stringify(schema);
    let validator = this.#compiled.get(key);
    if (!validator) {
      validator = super.getValidator(schema);
      this.#compiled.set(key, validator);
    }
    return validator as JsonSchemaValidator<T>;
  }
}

const validators = new SharedValidators();

/** Options of `connectTools`: the registry's (names served `dotted` unless set) and the protocol revision the client speaks. */
export interface ConnectOptions extends RegistryOptions {
  /** Default `modern`. */
  era?: ProtocolEra;
}

/**
 * Serves `tools` through core's MCP adapter and connects a client in memory. Tool names are
 * served `dotted` (the canonical names) unless `options.names` says otherwise. The client lists
 * the tools first, as real clients do, so it checks every structured result against its output
 * schema.
 */
export async function connectTools(
  tools: readonly AnyToolDefinition[],
  host: Host,
  options: ConnectOptions = {},
): Promise<ToolClient> {
  const registry = createToolRegistry(tools, host, { names: "dotted", ...options });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const served = serveStdio(() => createMcpServer(registry, { name: "test-server", version: "0.0.0" }), {
    transport: serverSide,
  });
  const client = new Client(
    { name: "test-client", version: "0.0.0" },
    {
      jsonSchemaValidator: validators,
      ...(options.era === "legacy" ? {} : { versionNegotiation: { mode: { pin: "2026-07-28" } } }),
    },
  );
  await client.connect(clientSide);
  await client.listTools();
  return {
    client,
    async call(name, args = {}, callOptions = {}) {
      const result = await client.callTool({ name, arguments: args }, callOptions);
      const first = result.content[0];
      const text = first?.type === "text" ? first.text : "";
      return {
        isError: result.isError === true,
        text,
        data: result.structuredContent as Record<string, unknown> | undefined,
        bytes: Buffer.byteLength(text),
      };
    },
    async close() {
      await client.close();
      await served.close();
    },
  };
}
