import { describe, expect, it } from "vitest";
import { LineGuard, type OversizedLine, oversizedRequestId } from "../src/stdio/lines.js";

describe("the stdio line guard", () => {
  /** Feeds `chunks` through a guard of `maxBytes`; what it passed on (each push) and refused. */
  function guard(maxBytes: number, chunks: string[]) {
    const passed: string[] = [];
    const refused: OversizedLine[] = [];
    const line = new LineGuard(maxBytes, (oversized) => refused.push(oversized));
    line.on("data", (chunk: Buffer) => passed.push(chunk.toString()));
    for (const chunk of chunks) line.write(Buffer.from(chunk));
    return { passed, refused };
  }

  it("passes every line whole, however the input is cut, and holds a line without its newline", () => {
    const input = '{"id":1}\n{"id":2,"x":"é"}\r\n\n{"id":3}\n{"id":4';
    for (let size = 1; size <= input.length; size++) {
      const chunks = Array.from({ length: Math.ceil(input.length / size) }, (_, i) =>
        input.slice(i * size, (i + 1) * size),
      );
      const { passed, refused } = guard(100, chunks);
      expect(passed, `chunks of ${size}`).toEqual(['{"id":1}\n', '{"id":2,"x":"é"}\r\n', "\n", '{"id":3}\n']);
      expect(refused).toEqual([]);
    }
  });

  it("passes a line of exactly the limit and refuses one byte more, then goes on", () => {
    const fits = `"${"x".repeat(8)}"`;
    const { passed, refused } = guard(10, [`${fits}\n${fits}y\n`, `{"id":7}\n`]);
    expect(passed).toEqual([`${fits}\n`, `{"id":7}\n`]);
    expect(refused).toEqual([{ bytes: 11 }]);
  });

  it.each([
    ['{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"a":"', '"}}', 5],
    ['{"method":"tools/call","params":{"a":"', '"},"jsonrpc":"2.0","id":"r-\\"1"}\r', 'r-"1'],
    ['{"method":"tools/call","params":{"id":5,"a":"', '"}}', undefined],
    ['{"method":"x","params":{"a":"', '","id":5}}', undefined],
    ['{"jsonrpc":"2.0","method":"notifications/progress","params":{"a":"', '"}}', undefined],
    ['{"jsonrpc":"2.0","id":6,"result":{"a":"', '"}}', undefined],
    ['{"result":{"a":"', '"},"jsonrpc":"2.0","id":6}', undefined],
  ])("reads the id of an oversized line %s…%s as %s", (head, tail, id) => {
    const { refused } = guard(64, [head, "x".repeat(10_000), `${tail}\n`]);
    expect(refused).toEqual([
      { bytes: head.length + 10_000 + tail.length, ...(id === undefined ? {} : { id }) },
    ]);
    expect(oversizedRequestId(head, `${"x".repeat(50)}${tail}`)).toEqual(id);
  });
});
