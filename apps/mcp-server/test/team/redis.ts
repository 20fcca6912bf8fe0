// A real redis-server for the team store's tests, on a free loopback port, with nothing persisted
// unless a test asks. The binary comes from `debianBinary` (installed when root on Debian):
// call `startRedis()` from a `beforeAll` with a timeout of a few minutes (`INSTALL_TIMEOUT_MS`).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "redis";
import { freePort } from "../spawn.js";
import { debianBinary } from "./debian.js";

export { INSTALL_TIMEOUT_MS } from "./debian.js";

const START_TIMEOUT_MS = 10_000;

/** A running redis-server. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>`. */
  url: string;
  /** Stops it for good and removes its directory. */
  stop(): Promise<void>;
  /**
   * Stops it (SIGTERM, so it saves on the way out when the test asked for persistence), runs
   * `whileDown` if given, and starts it again on the same port and directory, resolving once it
   * answers PING. Without persistence it comes back empty.
   */
  restart(whileDown?: () => Promise<void>): Promise<void>;
  /**
   * Everything Redis holds, for a test to search for plaintext: one `key<TAB>value` line per key
   * (string values as stored; other types by type name), then the bytes of a fresh RDB snapshot as
   * latin1 text. Without snapshot persistence (the default) the snapshot file is removed afterwards,
   * so it never changes what a restart loads.
   */
  dump(): Promise<string>;
  /** Every key with its string value as stored (other types by type name, e.g. `<hash>`). */
  records(): Promise<Map<string, string>>;
}

export interface RedisServerOptions {
  /**
   * More `redis-server` arguments, after the defaults (`--save ''`, `--appendonly no`), so they win:
   * e.g. `["--appendonly", "yes"]` for data that survives a restart.
   */
  args?: string[];
}

/** Resolves when Redis at `port` answers PING with PONG; false when it did not in one try. */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    let reply = "";
    const done = (ok: boolean) => {
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

const running = new Set<ChildProcess>();
// A test run that dies before its afterAll must not leave servers behind.
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/** Starts redis-server on `port` in `dir`; resolves once it answers, rejects with its output when it exits. */
async function launch(path: string, port: number, dir: string, args: string[]): Promise<ChildProcess> {
  const child = spawn(
    path,
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--protected-mode",
      "yes",
      "--daemonize",
      "no",
      "--dir",
      dir,
      "--save",
      "",
      "--appendonly",
      "no",
      "--logfile",
      "",
      ...args,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  running.add(child);
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  let exited = false;
  child.once("exit", () => {
    exited = true;
    running.delete(child);
  });
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!exited && Date.now() < deadline) {
    if (await pong(port)) return child;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill("SIGKILL");
  const last = output.trim().split("\n").at(-1) ?? "";
  throw new Error(`redis-server on port ${port} did not start: ${last || "no PONG within 10 s"}`);
}

async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}

/** Starts a redis-server for a test (see the file's comment); `stop()` it in `afterAll`. */
export async function startRedis(options: RedisServerOptions = {}): Promise<RedisServer> {
  const path = await debianBinary("redis-server", "redis-server", "the team store tests");
  const args = options.args ?? [];
  const dir = await mkdtemp(join(tmpdir(), "toolkits-redis-"));
  let port = 0;
  let child: ChildProcess | undefined;
  // Another process may take the free port between finding and binding it: try another.
  for (let attempt = 1; !child; attempt++) {
    port = await freePort();
    try {
      child = await launch(path, port, dir, args);
    } catch (error) {
      if (attempt >= 3) {
        await rm(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
  let current: ChildProcess | undefined = child;
  const url = `redis://127.0.0.1:${port}`;
  return {
    url,
    async stop() {
      if (current) await terminate(current);
      current = undefined;
      await rm(dir, { recursive: true, force: true });
    },
    async restart(whileDown) {
      if (current) await terminate(current);
      current = undefined;
      await whileDown?.();
      await mkdir(dir, { recursive: true });
      current = await launch(path, port, dir, args);
    },
    dump: () => dumpRedis(url, dir),
    records: () => withClient(url, listRecords),
  };
}

async function connect(url: string) {
  const client = createClient({ url });
  client.on("error", () => {});
  return await client.connect();
}
type RedisClient = Awaited<ReturnType<typeof connect>>;

async function withClient<T>(url: string, use: (client: RedisClient) => Promise<T>): Promise<T> {
  const client = await connect(url);
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

async function listRecords(client: RedisClient): Promise<Map<string, string>> {
  const records = new Map<string, string>();
  for await (const batch of client.scanIterator({ COUNT: 1_000 }))
    for (const key of batch) {
      const type = await client.type(key);
      records.set(key, type === "string" ? ((await client.get(key)) ?? "") : `<${type}>`);
    }
  return records;
}

function dumpRedis(url: string, dir: string): Promise<string> {
  return withClient(url, async (client) => {
    const lines = [...(await listRecords(client))].map(([key, value]) => `${key}\t${value}`);
    // CONFIG SET dbfilename is refused by Redis 7 (a protected setting), so the snapshot goes to the
    // usual file, which is removed again unless the test asked for snapshots to persist.
    const config = await client.configGet("*");
    await client.sendCommand(["SAVE"]);
    const file = join(config.dir ?? dir, config.dbfilename ?? "dump.rdb");
    const rdb = await readFile(file, "latin1");
    if (!config.save) await rm(file, { force: true });
    return `${lines.join("\n")}\n${rdb}`;
  });
}
