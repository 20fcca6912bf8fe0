#!/usr/bin/env node
import { readdirSync, readFileSync } from "node:fs";
// The container image's HEALTHCHECK. The image serves stdio unless told `--transport http` (a flag,
// or MCP_TRANSPORT=http), and a HEALTHCHECK cannot be switched on per run, so this reads how the
// server was started and checks `GET /healthz` only when it serves HTTP. Over stdio nothing
// listens: the container lives exactly as long as the server, so there is nothing more to check.
// Exit 0 when healthy (or stdio), 1 otherwise; one line on stdout, which `docker inspect` shows.
import { request } from "node:http";

const CLI = "/app/dist/cli.js";
const TIMEOUT_MS = 3_000;

/** The server's command-line arguments after the CLI path, or [] when no server process is found. */
function serverArguments() {
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    if (Number(pid) === process.pid) continue;
    let argv;
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    } catch {
      continue; // gone meanwhile
    }
    const at = argv.indexOf(CLI);
    if (at >= 0) return argv.slice(at + 1);
  }
  return [];
}

/** A flag's value in either `--name value` or `--name=value` form; the last one wins, as in the CLI. */
function flag(args, name) {
  let value;
  args.forEach((arg, index) => {
    if (arg === `--${name}`) value = args[index + 1];
    else if (arg.startsWith(`--${name}=`)) value = arg.slice(name.length + 3);
  });
  return value;
}

/** Where to reach /healthz: the server's flags win over its MCP_* variables, as in the CLI. */
function target() {
  const args = serverArguments();
  const transport = flag(args, "transport") ?? process.env.MCP_TRANSPORT ?? "stdio";
  const host = flag(args, "host") ?? process.env.MCP_HOST ?? "127.0.0.1";
  const port = Number(flag(args, "port") ?? process.env.MCP_PORT ?? 3000);
  // A wildcard bind answers on loopback too; the Host header must be a loopback name either way.
  const address = ["0.0.0.0", "::", ""].includes(host) ? "127.0.0.1" : host.replace(/^\[|\]$/g, "");
  return { transport, address, port };
}

function check({ address, port }) {
  return new Promise((done) => {
    const req = request(
      { host: address, port, path: "/healthz", headers: { host: "localhost" }, timeout: TIMEOUT_MS },
      (res) => {
        res.resume();
        done(res.statusCode === 200 ? undefined : `GET /healthz answered ${res.statusCode}`);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    req.on("error", (error) => done(`GET /healthz on port ${port}: ${error.message}`));
    req.end();
  });
}

const say = (line) => process.stdout.write(`${line}\n`);

const where = target();
if (where.transport !== "http") {
  say("stdio: nothing to probe");
} else if (!where.port) {
  // --port 0 picks a free port that only the server knows.
  say("http on a port picked at start: nothing to probe");
} else {
  const problem = await check(where);
  say(problem ?? "ok");
  if (problem) process.exitCode = 1;
}
