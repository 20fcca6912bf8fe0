import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { CLI } from "./spawn.js";

/** One JSON-RPC message as the server wrote it. */
export type Message = Record<string, unknown>;

/** The built binary driven line by line, as a client that writes its own JSON-RPC would. */
export interface RawStdio {
  child: ChildProcessWithoutNullStreams;
  /** Writes `message` as one JSON line. */
  send(message: unknown): Promise<void>;
  /** Writes `text` and a newline as they are, waiting until the pipe has taken them. */
  writeLine(text: string): Promise<void>;
  /** The answer to request `id`, once it arrives; rejects after `timeoutMs`. */
  answer(id: string | number, timeoutMs?: number): Promise<Message>;
  /** Every message written so far. */
  messages(): Message[];
  stderr(): string;
  /** Resolves with the exit code and the time of exit (performance clock, ms). */
  exited: Promise<{ code: number | null; at: number }>;
}

/**
 * Starts the built binary over stdio with only `env` (and PATH) and opens a 2025-06-18 session:
 * `initialize` answered, `notifications/initialized` sent.
 */
export async function startRawStdio(args: string[], env: Record<string, string> = {}): Promise<RawStdio> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? "", XDG_CONFIG_HOME: "/nonexistent-config", ...env },
  });
  const messages: Message[] = [];
  let pending = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) if (line.trim()) messages.push(JSON.parse(line));
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.on("close", (code) => resolve({ code, at: performance.now() })),
  );
  const writeLine = (text: string) =>
    new Promise<void>((resolve, reject) =>
      child.stdin.write(`${text}\n`, (error) => (error ? reject(error) : resolve())),
    );
  const answer = async (id: string | number, timeoutMs = 20_000) => {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const found = messages.find((message) => message.id === id && !("method" in message));
      if (found) return found;
      if (performance.now() > deadline)
        throw new Error(`no answer to ${id}; stderr: ${stderr.slice(-2_000)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const raw: RawStdio = {
    child,
    send: (message) => writeLine(JSON.stringify(message)),
    writeLine,
    answer,
    messages: () => messages,
    stderr: () => stderr,
    exited,
  };
  await raw.send({
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "hardening", version: "0" },
    },
  });
  await answer("init");
  await raw.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return raw;
}

/** A `tools/call` request. */
export const toolCall = (id: string | number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

/** The text of a `tools/call` answer and whether it is an error. */
export function callOutcome(answer: Message): { isError: boolean; text: string } {
  const result = answer.result as { isError?: boolean; content?: { text?: string }[] } | undefined;
  return { isError: result?.isError === true, text: result?.content?.[0]?.text ?? "" };
}
