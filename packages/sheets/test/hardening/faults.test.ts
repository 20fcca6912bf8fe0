import { envHost } from "@toolkits/core";
import {
  connectTools,
  emptyNoContent,
  FAULT_CASES,
  hang,
  jsonFailure,
  malformedJson,
  RATE_LIMITS,
  RETRIES,
  SANDBOX_CREDENTIALS,
  type ToolClient,
} from "@toolkits/core/testing";
import { HttpResponse, http } from "msw";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { sheetsToolkit } from "../../src/index.js";
import { SANDBOX_TOKEN, sandbox } from "../../src/sandbox/index.js";
import { SIGNED_IN, useSandbox } from "../harness.js";

// Upstream faults injected into the sandbox, seen through the MCP adapter of a host capped like
// the server (100,000-byte results). Reads, cell writes and notes are safe to repeat and retried;
// CreateSpreadsheet is not, so it is sent once whatever happens, except after a 429 (refused, so
// not carried out).

const SHEETS = "https://sheets.googleapis.com";
const GOOGLE = "https://www.googleapis.com";
const MAX_RESULT_BYTES = 100_000;
const SPREADSHEET = "quarterly-report-0";
const READ = { name: "Sheets.GetSpreadsheetMetadata", args: { spreadsheet_id: SPREADSHEET } };
const CREATE = { name: "Sheets.CreateSpreadsheet", args: { title: "Fault injection" } };
const ARGS: Readonly<Record<string, Record<string, unknown>>> = {
  "Sheets.GetSpreadsheet": { spreadsheet_id: SPREADSHEET },
  "Sheets.GetSpreadsheetMetadata": { spreadsheet_id: SPREADSHEET },
  "Sheets.WriteToCell": { spreadsheet_id: SPREADSHEET, column: "A", row: 1, value: "x" },
  "Sheets.UpdateCells": { spreadsheet_id: SPREADSHEET, data: '{"1":{"A":"x"}}' },
  "Sheets.AddNoteToCell": { spreadsheet_id: SPREADSHEET, column: "A", row: 1, note_text: "n" },
};
// Tools that call Google at all (the picker only builds a URL).
const CALLING = sheetsToolkit.tools
  .map((tool) => tool.name)
  .filter((name) => name !== "Sheets.GenerateFilePickerUrl");

const box = useSandbox();
let tools: ToolClient;

beforeEach(async () => {
  tools = await connectTools(sheetsToolkit.tools, envHost(SIGNED_IN, { maxResultBytes: MAX_RESULT_BYTES }));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await tools.close();
});

/** Every request to Google gets `respond`'s answer from now on (`once`: only the next one). */
function inject(respond: (request: Request) => Response | Promise<Response>, once = false): void {
  for (const origin of [SHEETS, GOOGLE])
    box.server.use(http.all(`${origin}/*`, ({ request }) => respond(request), { once }));
}

/** Requests sent since the test began. */
const attempts = () => box.count;

/** After the fault is gone, the same server answers a normal call. */
async function keepsAnswering(): Promise<void> {
  box.server.resetHandlers(...(sandbox().handlers as Parameters<typeof box.server.resetHandlers>));
  const result = await tools.call(READ.name, READ.args);
  expect(result.isError, result.text).toBe(false);
}

describe.each(FAULT_CASES)("$name", (fault) => {
  it("on a read: the right kind, retried only when that may help, and the server keeps answering", async () => {
    const before = attempts();
    inject(() => fault.respond());
    const result = await tools.call(READ.name, READ.args);
    expect(result.text).toMatch(new RegExp(`^${fault.kind}: `));
    expect(result.text).toMatch(fault.says);
    if (fault.retryAfterSeconds) expect(result.text).toContain(`Retry after ${fault.retryAfterSeconds} s.`);
    expect(attempts() - before).toBe(fault.retried ? 1 + RETRIES : 1);
    await keepsAnswering();
  });

  it("on CreateSpreadsheet: the right kind, sent exactly once, and the server keeps answering", async () => {
    const before = attempts();
    inject(() => fault.respond());
    const result = await tools.call(CREATE.name, CREATE.args);
    expect(result.text).toMatch(new RegExp(`^${fault.kind}: `));
    expect(attempts() - before).toBe(1);
    if (fault.kind !== "rate_limited") expect(result.text).toMatch(/not repeated|may have reached/);
    await keepsAnswering();
  });
});

describe.each(RATE_LIMITS)("$name", ({ respond }) => {
  it("is waited out on a read, which is retried once and succeeds", async () => {
    const before = attempts();
    inject(() => respond(), true);
    const result = await tools.call(READ.name, READ.args);
    expect(result.isError, result.text).toBe(false);
    expect(attempts() - before).toBe(2);
  });

  // Google refused the creation unrun, so core's policy sends it again, as for any request.
  it("is waited out on CreateSpreadsheet too, which is sent again and succeeds", async () => {
    const before = attempts();
    inject(() => respond(), true);
    const result = await tools.call(CREATE.name, CREATE.args);
    expect(result.isError, result.text).toBe(false);
    expect(attempts() - before).toBe(2);
    await keepsAnswering();
  });
});

const ODD_BODIES = [
  { body: "malformed JSON", respond: malformedJson },
  { body: "an empty 204", respond: emptyNoContent },
  { body: "JSON of the wrong shape", respond: () => HttpResponse.json({ unexpected: true }) },
];

describe.each(CALLING)("%s", (name) => {
  for (const { body, respond } of ODD_BODIES) {
    it(`answers ${body} with an error, never a crash`, async () => {
      inject(() => respond());
      const result = await tools.call(name, ARGS[name]);
      expect(result.isError, result.text).toBe(true);
      expect(result.text).toMatch(/^(upstream_error|not_found): /);
      expect(result.text).not.toMatch(/Unexpected failure/);
      await keepsAnswering();
    });
  }
});

describe("a 10 MB body", () => {
  it("of grid cells is cut to whole rows under the cap, with where to continue", async () => {
    const cell = { userEnteredValue: { stringValue: "x".repeat(10_000) } };
    const grid = {
      sheets: [
        {
          properties: { sheetId: 0 },
          data: [{ rowData: Array.from({ length: 1000 }, () => ({ values: [cell] })) }],
        },
      ],
    };
    box.server.use(
      http.get(`${SHEETS}/v4/spreadsheets/:id`, ({ request }) =>
        new URL(request.url).searchParams.has("ranges") ? HttpResponse.json(grid) : undefined,
      ),
    );
    const result = await tools.call("Sheets.GetSpreadsheet", { spreadsheet_id: SPREADSHEET });
    expect(result.isError, result.text.slice(0, 300)).toBe(false);
    expect(result.bytes).toBeLessThanOrEqual(MAX_RESULT_BYTES);
    expect(result.data).toMatchObject({ truncated: true, next_start_row: expect.any(Number) });
    await keepsAnswering();
  });

  it("of 40,000 search results is cut to the result cap with a truncation marker", async () => {
    const files = Array.from({ length: 40_000 }, (_, i) => ({
      id: `file-${i}`,
      name: `Spreadsheet ${i} ${"x".repeat(200)}`,
      modifiedTime: "2025-06-30T12:00:00.000Z",
      webViewLink: `https://docs.google.com/spreadsheets/d/file-${i}/edit`,
    }));
    box.server.use(http.get(`${GOOGLE}/drive/v3/files`, () => HttpResponse.json({ files })));
    const result = await tools.call("Sheets.SearchSpreadsheets", {});
    expect(result.isError, result.text.slice(0, 300)).toBe(false);
    expect(result.bytes).toBeLessThanOrEqual(MAX_RESULT_BYTES);
    expect(result.data?.truncated).toBe(true);
  });
});

describe("a hung upstream", () => {
  it("times out after the 30 s per-attempt limit without retrying, and the server keeps answering", async () => {
    const before = attempts();
    inject(() => hang());
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const pending = tools.call(READ.name, READ.args);
    await vi.waitFor(() => expect(attempts() - before).toBe(1));
    await vi.advanceTimersByTimeAsync(30_000);
    const result = await pending;
    vi.useRealTimers();
    expect(result.text).toBe("timeout: Google spreadsheets.get timed out. Retrying later may succeed.");
    expect(attempts() - before).toBe(1);
    await keepsAnswering();
  });

  it("is abandoned when the client cancels the call, sending nothing more, and the server keeps answering", async () => {
    const before = attempts();
    inject(() => hang());
    const cancel = new AbortController();
    const pending = tools.call(READ.name, READ.args, { signal: cancel.signal });
    await vi.waitFor(() => expect(attempts() - before).toBe(1));
    cancel.abort("the user gave up");
    await expect(pending).rejects.toThrow(/the user gave up/);
    expect(attempts() - before).toBe(1);
    await keepsAnswering();
  });
});

it("never shows the credential an upstream echoes back in its error", async () => {
  inject((request) => jsonFailure(400, `Malformed header: ${request.headers.get("authorization")}`));
  const result = await tools.call(READ.name, READ.args);
  expect(result.text).toMatch(/^invalid_input: .*Malformed header: Bearer \[redacted\]/);
  expect(result.text).not.toContain(SANDBOX_TOKEN);
});

it("runs under the suite's leak scan, which watches the sandbox's credential", () => {
  expect(SANDBOX_CREDENTIALS).toContain(SANDBOX_TOKEN);
});
