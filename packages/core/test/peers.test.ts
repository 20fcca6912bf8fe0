import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The built package installed alone, with its dependencies and its one required peer (zod) but
// none of the optional ones, as in a project that never installed them.
const PACKAGE = new URL("..", import.meta.url).pathname;
let project: string;

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), "core-peers-"));
  const installed = join(project, "node_modules", "@toolkits", "core");
  mkdirSync(installed, { recursive: true });
  for (const part of ["package.json", "dist"])
    cpSync(join(PACKAGE, part), join(installed, part), { recursive: true });
  for (const name of ["zod", "minisearch", "ky"]) {
    symlinkSync(
      realpathSync(join(PACKAGE, "node_modules", name)),
      join(project, "node_modules", name),
      "dir",
    );
  }
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

/** What importing `specifier` prints on stderr in that project. */
function importing(specifier: string): string {
  try {
    execFileSync(
      process.execPath,
      ["--input-type=module", "-e", `await import(${JSON.stringify(specifier)})`],
      {
        cwd: project,
        stdio: "pipe",
      },
    );
    return "";
  } catch (error) {
    return String((error as { stderr: Buffer }).stderr);
  }
}

describe("an entry point whose optional peer is not installed", () => {
  it.each([
    ["@toolkits/core/ai-sdk", 'needs ai ^5 || ^6: npm install ai@"^5 || ^6"'],
    [
      "@toolkits/core/mcp",
      'needs @modelcontextprotocol/server ^2.4: npm install @modelcontextprotocol/server@"^2.4"',
    ],
  ])("%s says in one line which package and version to install", (entry, hint) => {
    expect(importing(entry)).toContain(`${entry} ${hint}`);
  });

  it("leaves the main entry and the OpenAI adapter working", () => {
    expect(importing("@toolkits/core")).toBe("");
    expect(importing("@toolkits/core/openai")).toBe("");
  });
});
