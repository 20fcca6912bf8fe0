import { type ChildProcess, spawn } from "node:child_process";
import { get } from "node:http";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

export const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

export interface RunningServer {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  stop(): Promise<number | null>;
}

/**
 * Starts the built binary over HTTP on a free loopback port and resolves once `/healthz` answers,
 * whatever the log level (its start line is logged at info). A port taken between choosing it and
 * binding it is chosen again.
 */
export async function startHttpServer(
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<RunningServer> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn(process.execPath, [CLI, "--transport", "http", "--port", String(port), ...args], {
      env: { PATH: process.env.PATH, ...env },
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk;
    });
    const exited = new Promise<never>((_, reject) =>
      child.once("exit", (code) => reject(new Error(`server exited with ${code}: ${stderr}`))),
    );
    try {
      await Promise.race([untilHealthy(port), exited]);
    } catch (error) {
      if (attempt < 3 && stderr.includes("EADDRINUSE")) continue;
      throw error;
    }
    child.removeAllListeners("exit");
    return {
      url: `http://127.0.0.1:${port}/mcp`,
      child,
      stderr: () => stderr,
      stop: () =>
        new Promise((resolve) => {
          if (child.exitCode !== null) return resolve(child.exitCode);
          child.once("exit", resolve);
          child.kill("SIGTERM");
        }),
    };
  }
}

/**
 * Polls GET /healthz on `port` until it answers 200. Each probe has its own connection, closed after
 * the answer, so none is left open to count against the server's connection limits; a probe sent
 * after the server binds but before it serves gets no answer, so it is given up after a while.
 */
async function untilHealthy(port: number): Promise<void> {
  for (;;) {
    const status = await new Promise<number | undefined>((resolve) => {
      const where = { host: "127.0.0.1", port, path: "/healthz", headers: { connection: "close" } };
      const probe = get({ ...where, agent: false, timeout: 500 }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      probe.once("timeout", () => probe.destroy());
      probe.once("error", () => resolve(undefined));
    });
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Runs the built binary to completion with stdin closed. */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end();
  });
}

/** A loopback port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (!address || typeof address === "string") throw new Error("No free loopback port.");
  return address.port;
}
