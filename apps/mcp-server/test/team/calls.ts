// Tool calls as one person of a team deployment makes them: a client on the 2026-07-28 revision
// (stateless) with a front-door access token from the deployment's identity provider.
import { jsonRpcAnswer } from "../clients.js";
import type { Deployment } from "./deployment.js";

/** What a tools/call came back as. */
export interface CallAnswer {
  isError: boolean;
  /** The first text content, or the JSON-RPC error's message. */
  text: string;
  data: Record<string, unknown> | undefined;
  /** The JSON-RPC result, whole (its `_meta`, an `input_required` answer's requests). */
  result: Record<string, unknown> | undefined;
}

/** The front-door access token of `person` (`sub`), as the deployment's identity provider issues it. */
export function bearerOf(d: Deployment, person: string): Promise<string> {
  return d.idp.server.issuer.buildToken({
    scopesOrTransform: (_header, payload) => Object.assign(payload, { sub: person, aud: d.audience }),
  });
}

/** Where and how a call is made: the MCP URL's path (a connector URL's), the client's capabilities. */
export interface CallOptions {
  /** `/mcp` unless given (`/mcp/pager@eu`). */
  path?: string;
  capabilities?: Record<string, unknown>;
}

/** Calls `tool` as `person` through the deployment's URL (at `options.path`, else `/mcp`). */
export async function callAs(
  d: Deployment,
  person: string,
  tool: string,
  args: Record<string, unknown> = {},
  options: CallOptions = {},
): Promise<CallAnswer> {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": options.capabilities ?? {},
  };
  const response = await fetch(`${d.url}${options.path ?? "/mcp"}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${await bearerOf(d, person)}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": tool,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: tool, arguments: args, _meta: meta },
    }),
  });
  const message = await jsonRpcAnswer(response);
  const result = message.result as Record<string, unknown> | undefined;
  const error = message.error as { message: string } | undefined;
  const content = result?.content as { text?: string }[] | undefined;
  return {
    isError: error !== undefined || result?.isError === true,
    text: error?.message ?? content?.[0]?.text ?? "",
    data: result?.structuredContent as Record<string, unknown> | undefined,
    result,
  };
}

/** The connect link to `provider` in an answer asking the person to connect it. */
export function connectLinkIn(d: Deployment, answer: CallAnswer, provider: string): string {
  const link = new RegExp(`${d.url}/connect/${provider}\\?code=[\\w-]+`).exec(answer.text)?.[0];
  if (!answer.isError || !link) throw new Error(`No link to connect ${provider} in: ${answer.text}`);
  return link;
}
