// Tool calls in flight over HTTP (src/http/inflight.ts): each exchange on a real loopback server,
// how it ends (answered, timed out, the client gone, the shutdown's grace over) and what that does
// to its calls; and how a `notifications/cancelled` POST reaches the one call it names.
import { getEventListeners } from "node:events";
import { type ClientRequest, createServer, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readInbound } from "@toolkits/core/mcp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CallsInFlight, callIds, type Exchange, exchanges } from "../../src/http/inflight.js";

interface Answer {
  status: number;
  body: string;
}

/** One request held open on the server: its response, and the client's side. */
interface Held {
  res: ServerResponse;
  client: ClientRequest;
  /** The answer as the client reads it; rejects when the connection is cut off. */
  answer: Promise<Answer>;
}

let port = 0;
/** Takes each request the server receives, in order. */
const arriving: Array<(res: ServerResponse) => void> = [];
const server = createServer((_req, res) => arriving.shift()?.(res));
const held: Held[] = [];

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterEach(() => {
  for (const { res } of held.splice(0)) if (!res.writableEnded) res.end();
});
afterAll(() => server.close());

/** Sends a request and resolves once the server holds it, unanswered. */
async function hold(): Promise<Held> {
  const arrived = new Promise<ServerResponse>((resolve) => arriving.push(resolve));
  const client = request({ host: "127.0.0.1", port, path: "/mcp", method: "GET", agent: false });
  const answer = new Promise<Answer>((resolve, reject) => {
    client.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      res.on("aborted", () => reject(new Error("cut off")));
      res.on("error", reject);
    });
    client.on("error", reject);
  });
  // A rejection the test does not wait for is not an unhandled one.
  answer.catch(() => {});
  client.end();
  const one = { res: await arrived, client, answer };
  held.push(one);
  return one;
}

const aborted = (signal: AbortSignal): Promise<void> =>
  signal.aborted
    ? Promise.resolve()
    : new Promise((resolve) => signal.addEventListener("abort", () => resolve()));
const closed = (res: ServerResponse): Promise<void> =>
  res.closed ? Promise.resolve() : new Promise((resolve) => res.once("close", () => resolve()));
const messageOf = (answer: Answer): string =>
  (JSON.parse(answer.body) as { error: { message: string } }).error.message;

/** An exchange no timeout or shutdown ends during a test. */
async function exchange(): Promise<{ exchange: Exchange; held: Held }> {
  const one = await hold();
  return { exchange: exchanges(60_000, new AbortController().signal)(one.res), held: one };
}

const cancelling = (...requestIds: (string | number)[]) =>
  readInbound(
    requestIds.map((requestId) => ({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId },
    })),
  );

describe("callIds", () => {
  it("names the id of each tools/call request in a batch, and nothing else", () => {
    const inbound = readInbound([
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "a" } },
      { jsonrpc: "2.0", id: "two", method: "tools/call", params: { name: "b" } },
      { jsonrpc: "2.0", id: 3, method: "tools/list" },
      { jsonrpc: "2.0", method: "tools/call", params: { name: "a notification" } },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } },
      { jsonrpc: "2.0", id: 4, result: {} },
    ]);
    expect(callIds(inbound)).toEqual([1, "two"]);
  });

  it("names the one call of a single request, none of another", () => {
    expect(
      callIds(readInbound({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "a" } })),
    ).toEqual([9]);
    expect(callIds(readInbound({ jsonrpc: "2.0", id: 9, method: "ping" }))).toEqual([]);
    expect(callIds(readInbound(undefined))).toEqual([]);
  });
});

describe("CallsInFlight", () => {
  it("resolves each call of an exchange to its own controller, the same each time, and no other id", async () => {
    const { exchange: one } = await exchange();
    const calls = new CallsInFlight().open("alice", [1, "b"], one);
    const first = calls.call(1);
    expect(first).toBeInstanceOf(AbortController);
    expect(calls.call(1)).toBe(first);
    expect(calls.call("b")).toBeInstanceOf(AbortController);
    expect(calls.call("b")).not.toBe(first);
    expect(calls.call(2)).toBeUndefined();
  });

  it("aborts the caller's call a cancellation names, and no other call or caller's", async () => {
    const inFlight = new CallsInFlight();
    const alice = inFlight.open("alice", [1, 2], (await exchange()).exchange);
    const bob = inFlight.open("bob", [1], (await exchange()).exchange);
    inFlight.cancel("alice", cancelling(1));
    expect(alice.call(1)?.signal.aborted).toBe(true);
    expect(alice.call(2)?.signal.aborted).toBe(false);
    expect(bob.call(1)?.signal.aborted).toBe(false);
  });

  it('tells the ids 1 and "1" apart: each has its own call, cancelled alone, and closing forgets both', async () => {
    const inFlight = new CallsInFlight();
    const { exchange: one } = await exchange();
    const calls = inFlight.open("alice", [1, "1"], one);
    expect(calls.call(1)).not.toBe(calls.call("1"));
    inFlight.cancel("alice", cancelling("1"));
    expect([calls.call(1)?.signal.aborted, calls.call("1")?.signal.aborted]).toEqual([false, true]);
    calls.close();
    // Closed, the exchange's calls are out of reach: a later exchange's call 1 is cancelled alone.
    const later = inFlight.open("alice", [1], (await exchange()).exchange);
    inFlight.cancel("alice", cancelling(1));
    expect([later.call(1)?.signal.aborted, calls.call(1)?.signal.aborted]).toEqual([true, false]);
  });

  it("aborts every call a batch of cancellations names", async () => {
    const inFlight = new CallsInFlight();
    const calls = inFlight.open("alice", [1, 2, 3], (await exchange()).exchange);
    inFlight.cancel("alice", cancelling(1, 3));
    expect([1, 2, 3].map((id) => calls.call(id)?.signal.aborted)).toEqual([true, false, true]);
  });

  it("reaches a call in another exchange of the same caller", async () => {
    const inFlight = new CallsInFlight();
    const first = inFlight.open("alice", [1], (await exchange()).exchange);
    inFlight.open("alice", [2], (await exchange()).exchange);
    inFlight.cancel("alice", cancelling(1));
    expect(first.call(1)?.signal.aborted).toBe(true);
  });

  it("ignores a body that cancels nothing", async () => {
    const inFlight = new CallsInFlight();
    const calls = inFlight.open("alice", [1], (await exchange()).exchange);
    inFlight.cancel(
      "alice",
      readInbound({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "a" } }),
    );
    inFlight.cancel("alice", cancelling(2));
    expect(calls.call(1)?.signal.aborted).toBe(false);
  });

  it("once closed, no cancellation reaches the exchange's calls", async () => {
    const inFlight = new CallsInFlight();
    const calls = inFlight.open("alice", [1], (await exchange()).exchange);
    const call = calls.call(1);
    calls.close();
    inFlight.cancel("alice", cancelling(1));
    expect(call?.signal.aborted).toBe(false);
  });

  it("closing one exchange leaves another's call with the same id cancellable", async () => {
    const inFlight = new CallsInFlight();
    const done = inFlight.open("alice", [1], (await exchange()).exchange);
    const running = inFlight.open("alice", [1], (await exchange()).exchange);
    done.close();
    inFlight.cancel("alice", cancelling(1));
    expect(done.call(1)?.signal.aborted).toBe(false);
    expect(running.call(1)?.signal.aborted).toBe(true);
  });

  it("gives calls whose exchange ends controllers aborted by that end", async () => {
    const { exchange: one } = await exchange();
    const calls = new CallsInFlight().open("alice", [1], one);
    one.stop(503, "stopping");
    expect(calls.call(1)?.signal.aborted).toBe(true);
  });
});

describe("Exchange", () => {
  it("answered, ends without aborting its calls or its signal, and does not time out after", async () => {
    const one = await hold();
    const exchange = exchanges(30, new AbortController().signal)(one.res);
    const call = exchange.call();
    const { signal } = exchange;
    one.res.writeHead(200).end("done");
    expect(await one.answer).toEqual({ status: 200, body: "done" });
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(call.signal.aborted).toBe(false);
    expect(signal.aborted).toBe(false);
  });

  it("taking longer than its timeout, is answered 504 and aborts its calls and signal", async () => {
    const one = await hold();
    const exchange = exchanges(20, new AbortController().signal)(one.res);
    const calls = [exchange.call(), exchange.call()];
    const { signal } = exchange;
    const answer = await one.answer;
    expect(answer.status).toBe(504);
    expect(messageOf(answer)).toBe("The request took longer than 20 ms.");
    expect(calls.every((call) => call.signal.aborted)).toBe(true);
    expect(signal.aborted).toBe(true);
  });

  it("whose client goes away before the answer, aborts its calls and signal", async () => {
    const one = await hold();
    const exchange = exchanges(60_000, new AbortController().signal)(one.res);
    const call = exchange.call();
    const { signal } = exchange;
    one.client.destroy();
    await aborted(call.signal);
    expect(signal.aborted).toBe(true);
  });

  it("stopped after its answer began, cuts the answer off", async () => {
    const one = await hold();
    const exchange = exchanges(60_000, new AbortController().signal)(one.res);
    one.res.writeHead(200).write("partial");
    exchange.stop(503, "stopping");
    await expect(one.answer).rejects.toThrow();
    expect(exchange.call().signal.aborted).toBe(true);
  });

  it("once ended, makes its calls and its signal born aborted", async () => {
    const one = await hold();
    const exchange = exchanges(60_000, new AbortController().signal)(one.res);
    exchange.stop(503, "stopping");
    expect(exchange.call().signal.aborted).toBe(true);
    expect(exchange.signal.aborted).toBe(true);
    expect((await one.answer).status).toBe(503);
  });
});

describe("exchanges: the shutdown's grace", () => {
  it("ends every open exchange with 503 and aborts their calls, with one listener on the signal", async () => {
    const grace = new AbortController();
    const open = exchanges(60_000, grace.signal);
    const all = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const one = await hold();
        const exchange = open(one.res);
        return { one, call: exchange.call() };
      }),
    );
    expect(getEventListeners(grace.signal, "abort")).toHaveLength(1);
    grace.abort();
    const answers = await Promise.all(all.map(({ one }) => one.answer));
    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(messageOf(answer)).toBe("The server shut down before the request finished.");
    }
    expect(all.every(({ call }) => call.signal.aborted)).toBe(true);
  });

  it("leaves exchanges already answered alone", async () => {
    const grace = new AbortController();
    const open = exchanges(60_000, grace.signal);
    const one = await hold();
    const exchange = open(one.res);
    const call = exchange.call();
    one.res.writeHead(200).end("done");
    await closed(one.res);
    grace.abort();
    expect((await one.answer).status).toBe(200);
    expect(call.signal.aborted).toBe(false);
  });

  it("ends an exchange opened after it is over at once, its calls born aborted", async () => {
    const grace = new AbortController();
    const open = exchanges(60_000, grace.signal);
    grace.abort();
    const one = await hold();
    const exchange = open(one.res);
    expect(exchange.call().signal.aborted).toBe(true);
    expect(exchange.signal.aborted).toBe(true);
    expect((await one.answer).status).toBe(503);
  });
});
