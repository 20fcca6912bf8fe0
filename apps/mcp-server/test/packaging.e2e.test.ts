import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PUBLISHED_PACKAGES, pnpmCommand } from "../../../scripts/workspace.mjs";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const PNPM = pnpmCommand();

const CONSUMER = `import { envHost } from "@toolkits/core";
import { toFunctionTools } from "@toolkits/core/openai";
import { pagerToolkit } from "@toolkits/pager";
import { SANDBOX_TOKEN, sandbox } from "@toolkits/pager/sandbox";
import { setupServer } from "msw/node";

const server = setupServer(...sandbox().handlers);
server.listen({ onUnhandledRequest: "error" });
const tools = toFunctionTools(pagerToolkit.tools, envHost({ PAGER_ACCESS_TOKEN: SANDBOX_TOKEN }));
const names: string[] = tools.tools.map((tool) => tool.function.name);
const answer: string = await tools.call("Pager_ListTeams", JSON.stringify({ limit: 2 }));
process.stdout.write(JSON.stringify({ names, answer: JSON.parse(answer) }));
server.close();
`;

let project: string;
const run = (command: string[], cwd = project) =>
  execFileSync(command[0] as string, command.slice(1), {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });

/** Packs every package as published and installs the tarballs into a project outside the workspace. */
beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), "toolkits-consumer-"));
  for (const dir of PUBLISHED_PACKAGES)
    run([...PNPM, "pack", "--pack-destination", project], join(ROOT, dir));
  const tarballs = Object.fromEntries(
    readdirSync(project)
      .filter((file) => file.endsWith(".tgz"))
      .map((file) => [
        `@toolkits/${file.replace(/^toolkits-(.*)-\d+\.\d+\.\d+\.tgz$/, "$1")}`,
        `file:./${file}`,
      ]),
  );
  const manifest = {
    name: "toolkits-consumer",
    private: true,
    type: "module",
    dependencies: { ...tarballs, msw: "^2.15.0", zod: "^4.6.7" },
    devDependencies: { typescript: "~5.9.3", "@types/node": "^20.19.0" },
    // The tarballs depend on each other by version; point those at the local files, not the registry.
    pnpm: { overrides: tarballs },
  };
  writeFileSync(join(project, "package.json"), JSON.stringify(manifest, null, 2));
  const compilerOptions = {
    target: "ES2023",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    outDir: "out",
    skipLibCheck: false,
    types: ["node"],
  };
  writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["consumer.ts"] }));
  writeFileSync(join(project, "consumer.ts"), CONSUMER);
  run([...PNPM, "install", "--prefer-offline", "--config.confirmModulesPurge=false"]);
}, 240_000);

afterAll(() => rmSync(project, { recursive: true, force: true }));

describe("the published packages, installed from their tarballs", { timeout: 120_000 }, () => {
  it("type-check a consumer that builds an agent tool set from a toolkit, and run one tool on its sandbox", () => {
    run([...PNPM, "exec", "tsc", "-p", "tsconfig.json"]);
    const output = JSON.parse(run([process.execPath, "out/consumer.js"]));
    expect(output.names).toContain("Pager_ListTeams");
    expect(output.names).toHaveLength(14);
    expect(output.answer.teams).toHaveLength(2);
    expect(output.answer.more).toBe(true);
  });

  it("run `npx toolkits-mcp --help` from the packed server", () => {
    const help = run(["npx", "--no-install", "toolkits-mcp", "--help"]);
    expect(help).toContain("Usage: toolkits-mcp [options]");
    expect(help).toContain("--read-only");
  });
});
