import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, READ_ONLY_HINTS, type Sandbox, type Toolkit } from "../../src/index.js";
import {
  fuzzTools,
  isWatchedSecret,
  requestContract,
  sandboxEnv,
  useToolkitSandbox,
} from "../../src/testing/index.js";

// A toolkit of two tools on a fake upstream, to see the harness from a test's side.
const API = "https://api.notes.test";
const TOKEN = "notes-sandbox-token-4Fq9";

const saveNote = defineTool({
  name: "Notes.Save",
  title: "Save a note",
  description: "Saves a note and returns its id.",
  input: z.object({ text: z.string(), count: z.number().int().default(1) }),
  output: z.object({ id: z.string() }),
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  auth: { oauth: { provider: "notes", scopes: ["write"] } },
  async handler({ text, count }, context) {
    const { value } = await context.credential();
    const response = await context.fetch(`${API}/notes?count=${count}`, {
      method: "POST",
      headers: { authorization: `Bearer ${value.reveal()}`, "content-type": "application/json" },
      body: JSON.stringify({ text }),
    });
    return (await response.json()) as { id: string };
  },
});

// Claims a string id but returns a number: the client's output-schema check must catch it.
const broken = defineTool({
  name: "Notes.Broken",
  title: "Broken",
  description: "Returns a note id of the wrong type.",
  input: z.object({}),
  output: z.object({ id: z.string() }),
  hints: READ_ONLY_HINTS,
  auth: {},
  async handler() {
    return { id: 7 as unknown as string };
  },
});

interface NotesSandbox extends Sandbox {
  saved: string[];
}

function notesSandbox(): NotesSandbox {
  const saved: string[] = [];
  const handlers = [
    http.post(`${API}/notes`, async ({ request }) => {
      if (request.headers.get("authorization") !== `Bearer ${TOKEN}`)
        return new HttpResponse(null, { status: 401 });
      saved.push(((await request.json()) as { text: string }).text);
      return HttpResponse.json({ id: `N${saved.length}` });
    }),
  ];
  return { handlers, tokens: { notes: TOKEN }, settings: { NOTES_REGION: "eu" }, saved };
}

const notes: Toolkit = {
  id: "notes",
  title: "Notes",
  tools: [saveNote, broken],
  setup: "Set NOTES_ACCESS_TOKEN.",
  sandbox: async () => notesSandbox(),
};

const contract = requestContract({
  servers: [{ url: API }],
  paths: {
    "/notes": {
      post: {
        parameters: [{ name: "count", in: "query", schema: { type: "integer" } }],
        requestBody: { content: { "application/json": { schema: { type: "object" } } } },
      },
    },
  },
});

describe("sandboxEnv", () => {
  it("configures a server for a sandbox: secrets, tokens as access-token variables, settings", () => {
    expect(
      sandboxEnv({ handlers: [], secrets: { KEY: "k" }, tokens: { notes: "t" }, settings: { S: "s" } }),
    ).toEqual({
      KEY: "k",
      NOTES_ACCESS_TOKEN: "t",
      S: "s",
    });
  });
});

describe("useToolkitSandbox", () => {
  const box = useToolkitSandbox(notes, { sandbox: notesSandbox, contract });

  it("calls tools over MCP with the sandbox's credentials, recording each request with its body", async () => {
    const saved = await box.call("Notes.Save", { text: "hello", count: 2 });
    expect(saved).toMatchObject({ isError: false, data: { id: "N1" } });
    expect(box.sandbox.saved).toEqual(["hello"]);
    expect(box.requests).toEqual([
      {
        method: "POST",
        url: `${API}/notes?count=2`,
        headers: expect.objectContaining({ authorization: `Bearer ${TOKEN}` }),
        body: '{"text":"hello"}',
      },
    ]);
    expect(box.queries("/notes").map(String)).toEqual(["count=2"]);
  });

  it("serves a fresh sandbox and forgets the requests for every test", async () => {
    expect(box.requests).toEqual([]);
    expect(box.sandbox.saved).toEqual([]);
    expect(box.env).toEqual({ NOTES_ACCESS_TOKEN: TOKEN, NOTES_REGION: "eu" });
  });

  it("calls with another environment, and resets mid-test", async () => {
    const refused = await box.call("Notes.Save", { text: "x" }, {});
    expect(refused.text).toMatch(/^unauthenticated: /);
    await box.call("Notes.Save", { text: "kept" });
    await box.reset();
    expect(box.requests).toEqual([]);
    expect(box.sandbox.saved).toEqual([]);
  });

  it("lists the tools first, so a result that breaks its output schema fails the call", async () => {
    const client = await box.connect();
    await expect(client.call("Notes.Broken")).rejects.toThrow(/output schema|structured content/i);
  });

  it("adds the sandbox's credentials to the leak scan", () => {
    expect(isWatchedSecret(TOKEN)).toBe(true);
  });
});

describe("fuzzTools", () => {
  const box = useToolkitSandbox(notes, { sandbox: notesSandbox });
  fuzzTools(box, [saveNote], { runs: 20, knownError: /^$/, samples: () => ({ text: ["known"] }), contract });
});
