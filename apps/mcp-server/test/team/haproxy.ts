// A real HAProxy in front of the server's replicas, as deploy/haproxy.cfg sets it up (round robin,
// no affinity, readiness checks on /readyz, a connection refused sent to another replica), with
// fixed loopback backends instead of Docker's resolver and quick checks so a killed replica leaves
// the rotation within a second. Each answer says which replica served it (`x-replica`).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { debianBinary } from "./debian.js";

export interface Balancer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /**
   * Resolves once the balancer has a replica in rotation again (its `/readyz` answers 200 through
   * it): after replicas restart, HAProxy's next readiness check, not the restart, puts them back.
   * @throws Error when none is back within 10 s.
   */
  serving(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Requests sent to one replica whatever the rotation: by replica name, HAProxy conditions (each a
 * line's worth of anonymous ACLs, e.g. `{ path /oauth/authorize }`; bodies can be matched, as
 * requests are buffered). A test pins the steps it wants on different replicas.
 */
export type Pins = Record<string, string[]>;

/**
 * Starts haproxy on `port` balancing over `backends` (name → `host:port`), with `pins` steering some
 * requests to one of them; resolves once it accepts.
 */
export async function startBalancer(
  port: number,
  backends: Record<string, string>,
  pins: Pins = {},
): Promise<Balancer> {
  const binary = await debianBinary("haproxy", "haproxy", "the team deployment test");
  const dir = await mkdtemp(join(tmpdir(), "toolkits-haproxy-"));
  const file = join(dir, "haproxy.cfg");
  await writeFile(file, config(port, backends, pins));
  const child: ChildProcess = spawn(binary, ["-db", "-f", file], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  process.once("exit", () => child.kill("SIGKILL"));
  await accepting(port, child, () => output);
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    async serving() {
      for (const started = Date.now(); Date.now() - started < 10_000; ) {
        const status = await fetch(`${url}/readyz`).then(
          (response) => response.status,
          () => 0,
        );
        if (status === 200) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`HAProxy on ${url} put no replica back in rotation within 10 s:\n${output}`);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function config(port: number, backends: Record<string, string>, pins: Pins): string {
  const servers = Object.entries(backends).map(([name, address]) => `  server ${name} ${address} check`);
  const steering = Object.entries(pins).flatMap(([name, conditions]) =>
    conditions.map((condition) => `  use_backend pin_${name} if ${condition}`),
  );
  const pinned = Object.keys(pins).map(
    (name) => `
backend pin_${name}
  http-response set-header x-replica %s
  server ${name} ${backends[name]} check inter 300ms fall 1 rise 1`,
  );
  return `global
  log stdout format raw local0 info
  maxconn 2000

defaults
  mode http
  log global
  option httplog
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  timeout http-request 15s
  # A readiness check may take longer than the 300 ms between checks on a loaded machine; without
  # this it would be cut off at 300 ms, and one slow answer (fall 1) takes a live replica out.
  timeout check 2s
  retries 2
  option redispatch 1

frontend toolkits
  bind 127.0.0.1:${port}
  option http-buffer-request
${steering.join("\n")}
  default_backend mcp

backend mcp
  balance roundrobin
  option httpchk
  http-check send meth GET uri /readyz ver HTTP/1.1 hdr Host localhost
  http-check expect status 200
  default-server inter 300ms fall 1 rise 1
  http-response set-header x-replica %s
${servers.join("\n")}
${pinned.join("\n")}
`;
}

async function accepting(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`haproxy exited: ${output().trim().split("\n").at(-1)}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`haproxy did not accept on ${port} within 10 s: ${output().trim().split("\n").at(-1)}`);
}
