import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterEach, expect, it, vi } from "vitest";

// Tested README snippets, shared by the toolkit packages' test/readme.test.ts: every ```ts block
// after a `<!-- readme-test -->` line is type-checked against the workspace sources and run as a
// reader would run it. It needs the TypeScript compiler and knows this repository's layout, so it
// is the repository's own support, not part of the published @toolkits/core/testing.

/** The ```ts blocks that follow a `<!-- readme-test -->` line in the README at `readmePath`, in order. */
export function readmeSnippets(readmePath: string): string[] {
  const text = readFileSync(readmePath, "utf8");
  return [...text.matchAll(/^<!-- readme-test -->\n+```ts\n([\s\S]*?)^```$/gm)].map(
    (match) => match[1] ?? "",
  );
}

/** Where the snippets are compiled: the package's tsconfig.json, and the folder the snippet files sit in. */
export interface SnippetProject {
  /** The tsconfig whose compiler options the snippets are checked with. */
  tsconfig: string;
  /** The folder the snippets are compiled in as files, which decides what their imports resolve to. */
  dir: string;
}

/**
 * The type errors of each snippet, compiled as modules of the package (files `readme-snippet-N.ts`
 * in `dir`, which need not exist) with its tsconfig's options and workspace packages resolved to their
 * TypeScript sources (the `@toolkits/source` condition). Each error names its snippet and the code it is
 * at; none means every snippet type-checks.
 */
export function snippetTypeErrors(blocks: readonly string[], { tsconfig, dir }: SnippetProject): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(tsconfig, undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
    },
  });
  const options = { ...config?.options, noEmit: true, customConditions: ["@toolkits/source"] };
  const names = blocks.map((_, index) => join(dir, `readme-snippet-${index + 1}.ts`));
  const code = new Map(names.map((name, index) => [name, blocks[index] ?? ""]));
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => code.has(name) || fileExists(name);
  host.readFile = (name) => code.get(name) ?? readFile(name);
  host.getSourceFile = (name, version, ...rest) => {
    const text = code.get(name);
    return text === undefined
      ? getSourceFile(name, version, ...rest)
      : ts.createSourceFile(name, text, version);
  };
  const program = ts.createProgram(names, options, host);
  return names.flatMap((name, index) => {
    const file = program.getSourceFile(name);
    if (!file) throw new Error(`${name} was not compiled`);
    return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map(
      ({ start = 0, length = 0, messageText }) =>
        `snippet ${index + 1}, at "${file.text.slice(start, start + length)}": ${ts.flattenDiagnosticMessageText(messageText, "\n")}`,
    );
  });
}

/**
 * Runs a snippet as written and resolves to its top-level constants (and `let`s), by name. The snippet
 * is transpiled to CommonJS and its imports are served from `modules`, keyed by the names a reader
 * imports them by (`"@toolkits/core"`, `"@toolkits/pager"`, …); importing anything else throws.
 */
export async function runSnippet(
  code: string,
  modules: Readonly<Record<string, unknown>>,
  // biome-ignore lint/suspicious/noExplicitAny: the snippets' values are whatever the README makes them
): Promise<Record<string, any>> {
  const names = [...code.matchAll(/^(?:const|let) (\w+)/gm)].map((match) => match[1]);
  const { outputText } = ts.transpileModule(code, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2023 },
  });
  const require = (name: string) => {
    if (!Object.hasOwn(modules, name)) {
      throw new Error(`The README imports ${name}, which this test does not provide`);
    }
    return modules[name];
  };
  const AsyncFunction = (async () => {}).constructor as new (
    ...args: string[]
  ) => (...args: unknown[]) => unknown;
  const body = `${outputText}\nreturn { ${names.join(", ")} };`;
  return (await new AsyncFunction("require", "exports", body)(require, {})) as Record<string, unknown>;
}

/** What `readmeSuite` gives a package's README test: the snippets, and a runner for them. */
export interface ReadmeSuite {
  /** The README's tested ```ts blocks, in order. */
  blocks: string[];
  /** Runs a snippet as written, on the test's modules, and resolves to its top-level constants. */
  // biome-ignore lint/suspicious/noExplicitAny: the snippets' values are whatever the README makes them
  run(code: string): Promise<Record<string, any>>;
}

/**
 * The common part of a package's test/readme.test.ts, called inside its `describe` with the test file's
 * `import.meta.url`: reads the snippets of the package's README.md (the folder above the test's), adds
 * the test "are found and type-check against the sources" (exactly `expectedBlocks` snippets, none with
 * a type error under the package's tsconfig.json), restores every mock after each test, and returns
 * the snippets with a runner that serves their imports from `modules` (see `runSnippet`).
 */
export function readmeSuite(
  testFileUrl: string,
  modules: Readonly<Record<string, unknown>>,
  expectedBlocks: number,
): ReadmeSuite {
  const testDir = dirname(fileURLToPath(testFileUrl));
  const blocks = readmeSnippets(join(testDir, "../README.md"));

  afterEach(() => {
    vi.restoreAllMocks();
  });

  // Type-checking pulls in the workspace sources: seconds, more when every suite runs at once.
  it("are found and type-check against the sources", { timeout: 120_000 }, () => {
    expect(blocks).toHaveLength(expectedBlocks);
    expect(snippetTypeErrors(blocks, { tsconfig: join(testDir, "../tsconfig.json"), dir: testDir })).toEqual(
      [],
    );
  });

  return { blocks, run: (code) => runSnippet(code, modules) };
}
