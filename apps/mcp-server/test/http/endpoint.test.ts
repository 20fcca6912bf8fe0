// The `/mcp` endpoint (src/http/endpoint.ts) in process, on loopback, over the sandbox registries
// of side-by-side.ts: what it refuses before reading a body, per-caller cancellation, legacy
// clients' capabilities remembered per caller, and the scope reaching the SDK's handlers.
import { type ClientRequest, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { ClientCapabilities } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONNECTOR_FORM } from "../../src/connectors/selection.js";
import type { Dispatcher } from "../../src/dispatch.js";
import type { ClientMemory } from "../../src/http/endpoint.js";
import type { Caller } from "../../src/scope.js";
import { RENDERS_VIEWS } from "../apps/clients.js";
import {
  type Answer,
  at,
  call,
  declaring,
  last,
  legacyCall,
  modernCall,
  nextWait,
  type Sent,
  send,
  serve,
  servedDispatcher,
  withBody,
} from "./side-by-side.js";

const URL_ELICITATION = { elicitation: { url: {} } };
const URL_ELICITATION_REQUIRED = -32042;

/** What per-user mode's store does for legacy clients, in memory, noting who was recalled. */
class Memory implements ClientMemory {
  readonly remembered = new Map<string, ClientCapabilities | undefined>();
  readonly recalled: string[] = [];
  async remember(caller: Caller, capabilities: ClientCapabilities | undefined): Promise<void> {
    this.remembered.set(caller.key, capabilities);
  }
  async recall(caller: Caller): Promise<ClientCapabilities | undefined> {
    this.recalled.push(caller.key);
    return this.remembered.get(caller.key);
  }
}

const memory = new Memory();
const servers: { close(): void }[] = [];
/** How many requests reached the dispatcher. */
let dispatched = 0;
let port = 0;

/** The front door: `Authorization: Bearer <name>` is the person `<name>`; no token is answered 401. */
async function authenticate(req: IncomingMessage, res: ServerResponse) {
  const name = /^Bearer (\w+)$/.exec(req.headers.authorization ?? "")?.[1];
  if (!name) {
    res.writeHead(401, { "www-authenticate": "Bearer" }).end();
    return undefined;
  }
  return { caller: { key: `key:${name}`, principal: `test#${name}` } };
}

beforeAll(async () => {
  const served = servedDispatcher();
  const counting: Dispatcher = {
    dispatch: (...args) => {
      dispatched += 1;
      return served.dispatch(...args);
    },
  };
  port = await serve(counting, servers, { authenticate, clients: memory });
});
afterAll(() => {
  for (const server of servers) server.close();
});

/** `sent`, as the person `name` sends it. */
const as = (name: string, sent: Sent): Sent => ({
  ...sent,
  headers: { ...sent.headers, authorization: `Bearer ${name}` },
});
const post = (sent: Sent): Promise<Answer> => send(port, sent);

/**
 * The answer to a POST whose headers promise a body that never comes: one answered at once was
 * answered without reading the body. Rejects after `ms`, when the endpoint waits for the body.
 */
function postWithoutBody(path: string, headers: Record<string, string>, ms = 2_000): Promise<Answer> {
  let client: ClientRequest | undefined;
  const answered = new Promise<Answer>((resolve, reject) => {
    client = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        headers: { "content-type": "application/json", "content-length": "1000", ...headers },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: {}, body }));
      },
    );
    client.on("error", reject);
    client.flushHeaders();
  });
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${ms} ms: the endpoint waits for the body`)),
      ms,
    );
  });
  return Promise.race([answered, waited]).finally(() => {
    clearTimeout(timer);
    client?.destroy();
  });
}

const initialize = (capabilities: object) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "test", version: "1" } },
});
/** A 2025 initialize, posted as the v1 SDK client posts it. */
const initializing = (capabilities: object): Sent =>
  withBody(legacyCall("Pager_WhoAmI"), initialize(capabilities));
const cancelling = (requestId: number) => ({
  jsonrpc: "2.0",
  method: "notifications/cancelled",
  params: { requestId },
});
const toolsList = (meta?: object) => ({
  jsonrpc: "2.0",
  id: 3,
  method: "tools/list",
  params: meta ? { _meta: meta } : {},
});
/** The names a tools/list answer lists. */
function listed(answer: Answer): string[] {
  const result = last(answer)?.result as { tools?: { name: string }[] } | undefined;
  return (result?.tools ?? []).map((tool) => tool.name);
}

describe("mcpEndpoint: before reading the body", () => {
  it("answers what the front door refuses, without reading the body or dispatching", async () => {
    const before = dispatched;
    const answer = await postWithoutBody("/mcp", {});
    expect(answer.status).toBe(401);
    expect(dispatched).toBe(before);
  });

  it("answers a connector selection not served here 404, naming the form connector URLs take", async () => {
    const answer = await postWithoutBody("/mcp/nosuchkit", { authorization: "Bearer alice" });
    expect(answer.status).toBe(404);
    expect(answer.body).toContain("Not found: ");
    expect(answer.body).toContain(`Connector URLs take the form ${CONNECTOR_FORM}.`);
  });

  it("answers a batch repeating an id 400, without dispatching it", async () => {
    const before = dispatched;
    const call = legacyCall("Pager_WhoAmI").body;
    const answer = await post(as("alice", withBody(legacyCall("Pager_WhoAmI"), [call, call])));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({
      error: { code: -32600, message: expect.stringContaining("7") },
    });
    expect(dispatched).toBe(before);
  });
});

describe("mcpEndpoint: a notifications/cancelled POST", () => {
  const waitCall = (name: string) =>
    as(name, withBody(legacyCall("Test_Wait"), call("Test_Wait", {}, undefined, 5)));
  const cancel = (name: string) => as(name, withBody(legacyCall("Test_Wait"), cancelling(5)));
  const CANCELLED = {
    result: { isError: true, content: [{ type: "text", text: expect.stringContaining("cancelled") }] },
  };

  /** Starts `name`'s call of Test_Wait (id 5), resolving once it runs to its answer (still to come). */
  async function started(name: string): Promise<{ answer: Promise<Answer> }> {
    const running = nextWait();
    const answer = post(waitCall(name));
    await running;
    return { answer };
  }

  it("aborts the call it names of the same caller only", async () => {
    const alice = await started("alice");
    const bob = await started("bob");
    expect((await post(cancel("bob"))).status).toBe(202);
    expect(last(await bob.answer)).toMatchObject(CANCELLED);
    const pending = Symbol("pending");
    const still = await Promise.race([
      alice.answer,
      new Promise((resolve) => setTimeout(() => resolve(pending), 200)),
    ]);
    expect(still).toBe(pending);
    expect((await post(cancel("alice"))).status).toBe(202);
    expect(last(await alice.answer)).toMatchObject(CANCELLED);
  });
});

describe("mcpEndpoint: a legacy client's capabilities, remembered per caller", () => {
  it("are remembered at initialize, and recalled only for a call that needs a connection", async () => {
    expect((await post(as("carol", initializing(URL_ELICITATION)))).status).toBe(200);
    expect((await post(as("dave", initializing({})))).status).toBe(200);
    expect(memory.remembered.get("key:carol")).toEqual(URL_ELICITATION);
    expect(memory.remembered.get("key:dave")).toEqual({});

    expect(last(await post(as("carol", legacyCall("Pager_WhoAmI"))))).toMatchObject({ result: {} });
    expect(memory.recalled).toEqual([]);

    const carol = last(await post(as("carol", legacyCall("Test_Connect"))));
    expect(carol).toMatchObject({ error: { code: URL_ELICITATION_REQUIRED } });
    expect(memory.recalled).toEqual(["key:carol"]);

    const dave = last(await post(as("dave", legacyCall("Test_Connect"))));
    expect(dave).toMatchObject({ result: { isError: true } });
    expect(memory.recalled).toEqual(["key:carol", "key:dave"]);
  });

  it("are not what a modern client's call is judged by: its envelope is", async () => {
    await post(as("erin", initializing(URL_ELICITATION)));
    expect(memory.remembered.get("key:erin")).toEqual(URL_ELICITATION);
    const before = memory.recalled.length;
    const answer = await post(as("erin", modernCall("Test_Connect")));
    expect(last(answer)).toMatchObject({ result: { isError: true } });
    expect(memory.recalled).toHaveLength(before);
  });
});

describe("mcpEndpoint: the scope reaches the SDK's handlers", () => {
  const legacyList = withBody(legacyCall("Pager_WhoAmI"), toolsList());

  it("a tools/list of a connector URL lists only its view's tools", async () => {
    const whole = listed(await post(as("alice", legacyList)));
    const narrowed = listed(await post(as("alice", at("/mcp/sheets/readonly", legacyList))));
    expect(whole).toEqual(expect.arrayContaining(["Pager_WhoAmI", "Sheets_WhoAmI", "Sheets_WriteToCell"]));
    expect(narrowed).toContain("Sheets_WhoAmI");
    expect(narrowed.every((name) => name.startsWith("Sheets_"))).toBe(true);
    expect(narrowed).not.toContain("Sheets_WriteToCell");
    expect(narrowed).not.toContain("Sheets_CreateSpreadsheet");
  });

  it("a modern tools/list lists the app-only tools only to a client declaring MCP Apps", async () => {
    const modernList = (capabilities: object) =>
      as(
        "alice",
        withBody(
          modernCall("Pager_WhoAmI", {}, { headers: { "mcp-method": "tools/list", "mcp-name": undefined } }),
          toolsList(declaring(capabilities)),
        ),
      );
    expect(listed(await post(modernList(RENDERS_VIEWS)))).toContain("Pager_RefreshIncidents");
    const plain = listed(await post(modernList({})));
    expect(plain).toContain("Pager_WhoAmI");
    expect(plain).not.toContain("Pager_RefreshIncidents");
  });
});
