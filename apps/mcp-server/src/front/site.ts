import { ICONS_PATH, iconResponse } from "../icons/index.js";
import { type Pages, serveFetch } from "../pages.js";
import { FRONT_PATH, type FrontDeps, frontHandler } from "./index.js";

/** The server's own site, outside MCP authentication: the front page (`/`) and the icons (`/icons/…`). */
export function frontSite(deps: FrontDeps): Pages {
  const front = frontHandler(deps);
  const answer = async (request: Request) => {
    const path = new URL(request.url).pathname;
    if (!path.startsWith(ICONS_PATH)) return front(request);
    return request.method === "GET" || request.method === "HEAD" ? iconResponse(path) : undefined;
  };
  return {
    owns: (path) => path === FRONT_PATH || path.startsWith(ICONS_PATH),
    serve: (req, res) => serveFetch(answer, req, res),
  };
}
