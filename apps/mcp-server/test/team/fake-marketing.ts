import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in for the Customer.io App API, enough for the connect page's key check
 * (`GET /v1/workspaces`): keys in `accepted` pass, `failing` keys get a 500, any other a 401.
 */
export interface FakeMarketing {
  url: string;
  accepted: Set<string>;
  failing: Set<string>;
  /** `METHOD path` and the Authorization header of every request. */
  requests: { request: string; authorization: string }[];
  stop(): Promise<void>;
}

export async function startFakeMarketing(): Promise<FakeMarketing> {
  const fake: Omit<FakeMarketing, "url" | "stop"> = { accepted: new Set(), failing: new Set(), requests: [] };
  const server: Server = createServer((request, response) => {
    const authorization = request.headers.authorization ?? "";
    fake.requests.push({ request: `${request.method} ${request.url}`, authorization });
    const key = authorization.replace(/^Bearer /, "");
    const send = (status: number, body: unknown) =>
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (request.method !== "GET" || request.url !== "/v1/workspaces")
      return send(404, { meta: { error: "Not found" } });
    if (fake.failing.has(key)) return send(500, { meta: { error: "internal error" } });
    if (!fake.accepted.has(key)) return send(401, { meta: { error: "Unauthorized request" } });
    return send(200, { workspaces: [{ id: 1, name: "Main", messages_sent: 0, messages_billed: 0 }] });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    ...fake,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
