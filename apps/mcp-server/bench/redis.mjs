// A throwaway redis-server for the benchmarks that measure the store on Redis (per-user.mjs,
// builtin-auth.mjs), found on PATH, /usr/bin or /usr/sbin.
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { createConnection, createServer } from "node:net";
import { delimiter, join } from "node:path";

/** A throwaway redis-server on a free loopback port, persisting nothing, in `dir`. */
export async function startRedis(dir) {
  const dirs = [...(process.env.PATH ?? "").split(delimiter).filter(Boolean), "/usr/bin", "/usr/sbin"];
  const binary = dirs.map((where) => join(where, "redis-server")).find(isExecutable);
  if (!binary)
    throw new Error("No redis-server found: install it (Debian: `sudo apt-get install -y redis-server`).");
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn(
      binary,
      ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no"],
      { stdio: "ignore" },
    );
    const kill = () => child.kill("SIGKILL");
    process.once("exit", kill);
    if (await answers(port, child)) {
      return {
        url: `redis://127.0.0.1:${port}`,
        stop: () =>
          new Promise((resolve) => {
            process.off("exit", kill);
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once("exit", () => resolve());
            child.kill("SIGTERM");
          }),
      };
    }
    kill();
    process.off("exit", kill);
    if (attempt >= 3) throw new Error(`redis-server (${binary}) did not start on a loopback port.`);
  }
}

function isExecutable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether Redis on `port` answers PING within 10 s, giving up early if `child` exits. */
async function answers(port, child) {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && child.exitCode === null) {
    if (await pong(port)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

function pong(port) {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    let reply = "";
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      reply += chunk.toString("latin1");
      if (reply.includes("\r\n")) done(reply.startsWith("+PONG"));
    });
  });
}
