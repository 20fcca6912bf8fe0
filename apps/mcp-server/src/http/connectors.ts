import type { IncomingMessage, ServerResponse } from "node:http";
import { type Connectors, SelectionError } from "../connectors/selection.js";
import { type View, WHOLE } from "../views.js";
import { MCP_PATH, type McpTarget } from "./endpoint.js";
import { json } from "./respond.js";

/** Where RFC 9728 puts the protected-resource metadata of the resource at `path` (`/mcp/pager` …). */
export const metadataPathOf = (path: string): string => `/.well-known/oauth-protected-resource${path}`;

const CONNECTOR_PREFIX = `${MCP_PATH}/`;
const METADATA_PREFIX = metadataPathOf(MCP_PATH);

/** The target of a connector URL's path (`/mcp/<selection>`); undefined for any other path. */
export function connectorTarget(connectors: Connectors, path: string): McpTarget | undefined {
  if (!path.startsWith(CONNECTOR_PREFIX)) return undefined;
  return { path, view: () => connectors.viewOf(path.slice(CONNECTOR_PREFIX.length)) };
}

/**
 * Answers `GET` of the protected-resource metadata of `/mcp` or of a connector URL (each names
 * its own URL as the resource, as clients check, and is made for the URL's view), or 404 for a selection not served here, without
 * its reasons (the metadata is read before authentication). Resolves to whether `path` was one.
 */
export function answerMetadata(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  connectors: Connectors,
  metadata: (resourcePath: string, view: View) => string,
): boolean {
  if (req.method !== "GET" || !path.startsWith(METADATA_PREFIX)) return false;
  const resource = path.slice(METADATA_PREFIX.length - MCP_PATH.length);
  const target = resource === MCP_PATH ? undefined : connectorTarget(connectors, resource);
  if (resource !== MCP_PATH && !target) return false;
  let view: View;
  try {
    view = target?.view() ?? WHOLE;
  } catch (error) {
    if (!(error instanceof SelectionError)) throw error;
    res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
    return true;
  }
  json(res, 200, metadata(resource, view));
  return true;
}
