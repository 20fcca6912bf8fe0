// The real Gemini CLI (npm `@google/gemini-cli`, pinned), run headlessly against a test deployment
// without any Google service: its model is a stand-in Gemini API (GOOGLE_GEMINI_BASE_URL with an
// API key), its home a temp folder, and its browser opener a shim handing the sign-in URL to the test.
//
// What 0.61.0 does as an MCP OAuth client (bundle/chunk-JDPZ4CE3.js, from packages/core/src):
// - mcp/oauth-provider.ts `authenticate`: on a 401 from a server whose settings say
//   `oauth.enabled`, discovers the authorization server, registers by DCR (`client_name` "Gemini CLI
//   MCP Client", one `http://localhost:<port>/oauth/callback`, `token_endpoint_auth_method` none),
//   asks "Do you want to continue? [Y/n]" on stdin when headless, and opens the browser;
// - utils/secure-browser-launcher.ts `openBrowserSecurely`: on Linux runs `xdg-open <url>` from PATH;
// - utils/oauth-flow.ts `refreshAccessToken`: a form POST of `grant_type`, `refresh_token`,
//   `client_id` and `resource`, accepting JSON or a form;
// - mcp/oauth-token-storage.ts `isTokenExpired`: a token within 5 minutes of its expiry counts as
//   expired, and tokens live in ~/.gemini/mcp-oauth-tokens.json;
// - mcp/stored-token-provider.ts: once tokens are stored, each MCP request of a new process asks for
//   a token, and while it counts as expired each one refreshes with the stored refresh token, at once;
//   after a failed refresh the tokens are deleted, and the SDK registers a new client with no
//   redirect URIs or grant types, under which it presents its refresh token again.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const exec = promisify(execFile);

export const GEMINI_CLI_VERSION = "0.61.0";

/** A concrete model: with the default (`auto`) the CLI first asks a routing model to rate the prompt. */
const MODEL = "gemini-2.5-flash";

/**
 * The CLI's entry point, installed with npm into the user's cache on first use (scripts skipped:
 * only optional native modules have any). Give the caller's `beforeAll` a few minutes.
 */
export async function geminiCli(): Promise<string> {
  const dir = join(
    process.env.XDG_CACHE_HOME || join(homedir(), ".cache"),
    "toolkits-gemini-cli",
    GEMINI_CLI_VERSION,
  );
  const entry = join(dir, "node_modules/@google/gemini-cli/bundle/gemini.js");
  if (existsSync(entry)) return entry;
  const partial = `${dir}.${process.pid}`;
  await mkdir(partial, { recursive: true });
  const spec = `@google/gemini-cli@${GEMINI_CLI_VERSION}`;
  await exec("npm", ["install", "--prefix", partial, "--ignore-scripts", "--no-audit", "--no-fund", spec], {
    cwd: partial,
    timeout: 5 * 60_000,
  });
  await rename(partial, dir).catch(() => rm(partial, { recursive: true, force: true }));
  return entry;
}

/** What the CLI keeps for one MCP server in mcp-oauth-tokens.json. */
export interface StoredCredentials {
  serverName: string;
  token: { accessToken: string; refreshToken?: string; expiresAt?: number; scope?: string };
  clientId: string;
  tokenUrl: string;
  mcpServerUrl: string;
}

/** One home folder of the CLI, kept across its runs (a restart is a new run in the same home). */
export interface GeminiHome {
  /** The credentials the CLI stored for `server`. */
  credentials(server: string): Promise<StoredCredentials | undefined>;
  /** The URLs the CLI asked its browser to open. */
  opened: string[];
  /**
   * Runs `gemini -p <prompt>`, answering its sign-in question with yes; resolves once it exits.
   * @throws Error with its output when it runs longer than `timeoutMs`.
   */
  run(prompt: string, timeoutMs: number): Promise<{ code: number | null; output: string }>;
  stop(): Promise<void>;
}

/**
 * A home whose settings trust one MCP server at `mcpUrl` with OAuth on, and whose browser is
 * `browse` (the test's Chromium), called with each URL the CLI opens.
 */
export async function geminiHome(
  cli: string,
  options: { server: string; mcpUrl: string; modelUrl: string; browse: (url: string) => Promise<void> },
): Promise<GeminiHome> {
  const dir = await mkdtemp(join(tmpdir(), "toolkits-gemini-"));
  const work = join(dir, "work");
  const bin = join(dir, "bin");
  await Promise.all([mkdir(join(dir, ".gemini")), mkdir(work), mkdir(bin)]);
  const settings = {
    mcpServers: { [options.server]: { httpUrl: options.mcpUrl, oauth: { enabled: true }, trust: true } },
    security: { auth: { selectedType: "gemini-api-key" } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  };
  await writeFile(join(dir, ".gemini/settings.json"), JSON.stringify(settings));
  const opened: string[] = [];
  const children = new Set<ChildProcess>();
  const browsing: Promise<unknown>[] = [];
  const opener = createServer(async (req, res) => {
    let url = "";
    for await (const chunk of req) url += chunk;
    opened.push(url);
    // The CLI would wait minutes for its callback: a failed sign-in ends its run at once.
    browsing.push(
      options.browse(url).catch((error: unknown) => {
        for (const child of children) child.kill("SIGKILL");
        return error;
      }),
    );
    res.end();
  });
  opener.listen(0, "127.0.0.1");
  await once(opener, "listening");
  const openerUrl = `http://127.0.0.1:${(opener.address() as AddressInfo).port}`;
  const post =
    "fetch(process.argv[1], { method: 'POST', body: process.argv[2] }).then((r) => process.exit(r.ok ? 0 : 1))";
  await writeFile(
    join(bin, "xdg-open"),
    `#!/bin/sh\nexec "${process.execPath}" -e "${post}" "${openerUrl}" "$1"\n`,
  );
  await chmod(join(bin, "xdg-open"), 0o755);
  const env = {
    HOME: dir,
    PATH: `${bin}:${process.env.PATH ?? ""}`,
    GEMINI_API_KEY: "test-key",
    GOOGLE_GEMINI_BASE_URL: options.modelUrl,
    // One process: the CLI otherwise starts itself again with a larger heap.
    GEMINI_CLI_NO_RELAUNCH: "true",
  };
  return {
    opened,
    async credentials(server) {
      const file = join(dir, ".gemini/mcp-oauth-tokens.json");
      if (!existsSync(file)) return undefined;
      const all = JSON.parse(await readFile(file, "utf8")) as StoredCredentials[];
      return all.find((entry) => entry.serverName === server);
    },
    async run(prompt, timeoutMs) {
      const child = spawn(process.execPath, [cli, "-p", prompt, "-m", MODEL, "--skip-trust"], {
        cwd: work,
        env,
      });
      children.add(child);
      let output = "";
      let answered = 0;
      const keep = (chunk: Buffer) => {
        output += chunk;
        for (; answered < output.split("[Y/n]").length - 1; answered++) child.stdin.write("y\n");
      };
      child.stdout.on("data", keep);
      child.stderr.on("data", keep);
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      const [code, signal] = (await once(child, "exit")) as [number | null, string | null];
      clearTimeout(timer);
      children.delete(child);
      const browsed = (await Promise.all(browsing.splice(0))).filter(Boolean);
      if (browsed.length) throw new Error(`the browser failed: ${browsed.join("; ")}\n${output}`);
      if (signal === "SIGKILL") throw new Error(`gemini ran over ${timeoutMs} ms:\n${output}`);
      return { code, output };
    },
    async stop() {
      for (const child of children) child.kill("SIGKILL");
      await new Promise((resolve) => opener.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
