import { envHost, observeToolOutcomes, type ToolOutcome } from "@toolkits/core";
import {
  connectTools,
  emptyNoContent,
  FAULT_CASES,
  hang,
  hugeJson,
  jsonFailure,
  malformedJson,
  RATE_LIMITS,
  RETRIES,
  SANDBOX_CREDENTIALS,
  type ToolClient,
} from "@toolkits/core/testing";
import { HttpResponse, http } from "msw";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { pagerToolkit } from "../../src/index.js";
import { SANDBOX_TOKEN, sandbox } from "../../src/sandbox/index.js";
import { SANDBOX_ENV, useSandbox } from "../harness.js";

// Upstream faults injected into the sandbox, seen through the MCP adapter of a host capped like
// the server (100,000-byte results). Every PagerDuty call is an idempotent GET, so each transient
// fault is retried, then reported; afterwards the same server answers normally.

const API = "https://api.pagerduty.com";
const MAX_RESULT_BYTES = 100_000;
const ARGS: Readonly<Record<string, Record<string, unknown>>> = {
  "Pager.GetIncident": { incident_id: "PQ00000" },
  "Pager.GetEscalationPolicy": { escalation_policy_id: "PE00000" },
  "Pager.GetService": { service_id: "PV00000" },
  "Pager.GetTeam": { team_id: "PT00000" },
  "Pager.SearchUsers": { query: "Avery Quinn" },
};

const pd = useSandbox();
let tools: ToolClient;

beforeEach(async () => {
  tools = await connectTools(pagerToolkit.tools, envHost(SANDBOX_ENV, { maxResultBytes: MAX_RESULT_BYTES }));
});
afterEach(async () => {
  vi.useRealTimers();
  await tools.close();
});

/** Every request to PagerDuty gets `respond`'s answer from now on. */
const inject = (respond: (request: Request) => Response | Promise<Response>, once = false) =>
  pd.server.use(http.all(`${API}/*`, ({ request }) => respond(request), { once }));
const incidentAttempts = () => pd.queries("/incidents").length;

/** After the fault is gone, the same server answers a normal call. */
async function keepsAnswering(): Promise<void> {
  pd.server.resetHandlers(...sandbox().handlers);
  const result = await tools.call("Pager.ListIncidents", { limit: 3 });
  expect(result.isError, result.text).toBe(false);
}

describe.each(FAULT_CASES)("$name", (fault) => {
  it("gives the right kind, retries an idempotent read only when that may help, and keeps answering", async () => {
    inject(() => fault.respond());
    const result = await tools.call("Pager.ListIncidents");
    expect(result.text).toMatch(new RegExp(`^${fault.kind}: GET /incidents `));
    expect(result.text).toMatch(fault.says);
    if (fault.retryAfterSeconds)
      expect(result.text).toMatch(new RegExp(`Retry after ${fault.retryAfterSeconds} s\\.$`));
    expect(incidentAttempts()).toBe(fault.retried ? 1 + RETRIES : 1);
    await keepsAnswering();
  });
});

describe.each(RATE_LIMITS)("$name", ({ respond }) => {
  it("waits, retries and succeeds", async () => {
    inject(() => respond(), true);
    const result = await tools.call("Pager.ListIncidents");
    expect(result.isError, result.text).toBe(false);
    expect(incidentAttempts()).toBe(2);
  });
});

it("retries a connection reset on the first attempt and succeeds", async () => {
  inject(() => Response.error(), true);
  const result = await tools.call("Pager.ListIncidents");
  expect(result.isError, result.text).toBe(false);
  expect(incidentAttempts()).toBe(2);
});

describe.each(pagerToolkit.tools.map((tool) => tool.name))("%s", (name) => {
  it("answers malformed JSON and an empty 204 with upstream_error, never a crash", async () => {
    for (const respond of [malformedJson, emptyNoContent]) {
      inject(() => respond());
      const result = await tools.call(name, ARGS[name]);
      expect(result.text).toMatch(/^upstream_error: .*(a body that is not JSON|HTTP 204 with no body)/);
    }
    await keepsAnswering();
  });

  it("answers a JSON body of the wrong shape with upstream_error, never a crash", async () => {
    inject(() => HttpResponse.json({ unexpected: true }));
    const result = await tools.call(name, ARGS[name]);
    expect(result.text).toMatch(/^upstream_error: /);
    expect(result.text).not.toMatch(/Unexpected failure/);
  });
});

describe("a 10 MB body", () => {
  const incident = (id: number, title: string) => ({ ...pd.account.incidents[0], id: `PQ9${id}`, title });

  it("of ten enormous incidents is cut to the result cap with a truncation marker", async () => {
    const per = 1_000_000;
    inject(() =>
      hugeJson(per, (filler) => ({
        incidents: Array.from({ length: 10 }, (_, i) => incident(i, filler)),
        limit: 10,
        offset: 0,
        more: false,
      })),
    );
    const result = await tools.call("Pager.ListIncidents");
    expect(result.isError, result.text.slice(0, 300)).toBe(false);
    expect(result.bytes).toBeLessThanOrEqual(MAX_RESULT_BYTES);
    expect(result.data?.truncated).toBe(true);
    await keepsAnswering();
  });

  it("of 20,000 incidents is cut to the result cap with a truncation marker", async () => {
    inject(() =>
      HttpResponse.json({
        incidents: Array.from({ length: 20_000 }, (_, i) => incident(i, `Incident ${i} ${"x".repeat(400)}`)),
        limit: 50,
        offset: 0,
        more: true,
      }),
    );
    const result = await tools.call("Pager.ListIncidents", { limit: 50 });
    expect(result.isError, result.text.slice(0, 300)).toBe(false);
    expect(result.bytes).toBeLessThanOrEqual(MAX_RESULT_BYTES);
    expect(result.data?.truncated).toBe(true);
  });
});

describe("a hung upstream", () => {
  it("times out after the 30 s per-attempt limit without retrying, and the server keeps answering", async () => {
    inject(() => hang());
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const pending = tools.call("Pager.ListIncidents");
    await vi.waitFor(() => expect(incidentAttempts()).toBe(1));
    await vi.advanceTimersByTimeAsync(30_000);
    const result = await pending;
    vi.useRealTimers();
    expect(result.text).toBe("timeout: GET /incidents timed out. Retrying later may succeed.");
    expect(incidentAttempts()).toBe(1);
    await keepsAnswering();
  });

  it("is abandoned when the client cancels the call, sending nothing more, and the server keeps answering", async () => {
    inject(() => hang());
    const cancel = new AbortController();
    const pending = tools.call("Pager.ListIncidents", {}, { signal: cancel.signal });
    await vi.waitFor(() => expect(incidentAttempts()).toBe(1));
    cancel.abort("the user gave up");
    await expect(pending).rejects.toThrow(/the user gave up/);
    expect(incidentAttempts()).toBe(1);
    await keepsAnswering();
  });

  // The MCP SDK aborts a cancelled call's signal with the client's reason (a string), not an AbortError.
  it("reports a call the client cancelled as timeout: was cancelled", async () => {
    const outcomes: ToolOutcome[] = [];
    const stop = observeToolOutcomes((_, outcome) => outcomes.push(outcome));
    inject(() => hang());
    const cancel = new AbortController();
    const pending = tools.call("Pager.ListIncidents", {}, { signal: cancel.signal });
    await vi.waitFor(() => expect(incidentAttempts()).toBe(1));
    cancel.abort("the user gave up");
    await pending.catch(() => {});
    await vi.waitFor(() => expect(outcomes).toHaveLength(1));
    stop();
    const [outcome] = outcomes;
    expect(outcome?.ok === false && outcome.error.toText()).toBe("timeout: GET /incidents was cancelled.");
  });
});

it("never shows the credential an upstream echoes back in its error", async () => {
  inject((request) => jsonFailure(400, `Malformed header: ${request.headers.get("authorization")}`));
  const result = await tools.call("Pager.ListIncidents");
  expect(result.text).toBe(
    "invalid_input: GET /incidents failed with HTTP 400: Malformed header: Bearer [redacted].",
  );
  expect(result.text).not.toContain(SANDBOX_TOKEN);
});

it("runs under the suite's leak scan, which watches the sandbox's credential", () => {
  expect(SANDBOX_CREDENTIALS).toContain(SANDBOX_TOKEN);
});
