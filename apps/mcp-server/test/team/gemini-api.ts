// A stand-in for the Gemini API on loopback, for running the real Gemini CLI without Google: the
// CLI sends its model requests here when GOOGLE_GEMINI_BASE_URL names it. The model it plays calls
// one tool when the CLI offers it, then ends the turn, and it keeps what the CLI sent: the tools the
// CLI offered (its MCP servers' `tools/list`) and the tool results it returned (their `tools/call`).
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** One `generateContent` request as the CLI sent it. */
export interface ModelTurn {
  /** The function declarations offered, by the CLI's names (an MCP tool's is `mcp_<server>_<tool>`). */
  offered: string[];
  /** The function responses sent back: the tool results. */
  results: { name: string; response: unknown }[];
}

export interface FakeGeminiApi {
  url: string;
  turns: ModelTurn[];
  stop(): Promise<void>;
}

interface Part {
  text?: string;
  functionCall?: { name: string; args: Record<string, unknown> };
  functionResponse?: { name: string; response: unknown };
}

interface Request {
  contents?: { role?: string; parts?: Part[] }[];
  tools?: { functionDeclarations?: { name: string }[] }[];
}

/** Starts the stand-in; its model calls the offered tool whose name ends with `_<tool>`. */
export async function startFakeGeminiApi(tool: string): Promise<FakeGeminiApi> {
  const turns: ModelTurn[] = [];
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const request = (body ? JSON.parse(body) : {}) as Request;
    const offered = (request.tools ?? []).flatMap((set) => set.functionDeclarations ?? []).map((d) => d.name);
    const last = request.contents?.at(-1)?.parts ?? [];
    const results = last.flatMap((part) => (part.functionResponse ? [part.functionResponse] : []));
    turns.push({ offered, results });
    const call = offered.find((name) => name.endsWith(`_${tool}`));
    const part: Part = results.length
      ? { text: `The tool answered: ${JSON.stringify(results[0]?.response)}` }
      : call
        ? { functionCall: { name: call, args: {} } }
        : { text: `No ${tool} among the tools offered.` };
    const answer = {
      candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
    };
    if (req.url?.includes(":streamGenerateContent")) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(`data: ${JSON.stringify(answer)}\n\n`);
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(req.url?.includes(":countTokens") ? { totalTokens: 1 } : answer));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    turns,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
