// Prometheus for real: Debian's `prometheus` (installed when missing, as the team tests install
// redis-server) scrapes the built server's --metrics-port, and a query through its HTTP API
// returns the tool call counted; it loads deploy/alerts.yml, and promtool accepts the scrape
// configuration and the alert rules in deploy/.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectHttp } from "../clients.js";
import { freePort, type RunningServer, startHttpServer } from "../spawn.js";
import { debianBinary, INSTALL_TIMEOUT_MS } from "../team/debian.js";

const exec = promisify(execFile);
const DEPLOY = fileURLToPath(new URL("../../../../deploy/", import.meta.url));
const PURPOSE = "the Prometheus scrape test";

/** The instant value of `query` through Prometheus' HTTP API; undefined while it has none. */
async function instant(api: string, query: string): Promise<number | undefined> {
  const response = await fetch(`${api}/api/v1/query?${new URLSearchParams({ query })}`).catch(
    () => undefined,
  );
  if (!response?.ok) return undefined;
  const body = (await response.json()) as { data: { result: { value: [number, string] }[] } };
  const [first] = body.data.result;
  return first ? Number(first.value[1]) : undefined;
}

describe("Prometheus", () => {
  let prometheus: string;
  let promtool: string;
  beforeAll(async () => {
    prometheus = await debianBinary("prometheus", "prometheus", PURPOSE);
    promtool = await debianBinary("promtool", "prometheus", PURPOSE);
  }, INSTALL_TIMEOUT_MS);

  it("promtool accepts deploy/prometheus.yml and deploy/alerts.yml", async () => {
    const config = await exec(promtool, ["check", "config", join(DEPLOY, "prometheus.yml")]);
    expect(config.stdout).toMatch(/SUCCESS/);
    const rules = await exec(promtool, ["check", "rules", join(DEPLOY, "alerts.yml")]);
    expect(rules.stdout).toMatch(/SUCCESS: \d+ rules found/);
  });

  describe("scraping --metrics-port", () => {
    let server: RunningServer;
    let scraper: ChildProcess;
    let dir: string;
    let api: string;

    beforeAll(async () => {
      const metricsPort = await freePort();
      server = await startHttpServer([
        "--sandbox",
        "--toolkits",
        "pager",
        "--metrics-port",
        String(metricsPort),
      ]);
      dir = await mkdtemp(join(tmpdir(), "prometheus-"));
      const config = [
        "global:",
        "  scrape_interval: 1s",
        "  evaluation_interval: 1s",
        "rule_files:",
        `  - ${join(DEPLOY, "alerts.yml")}`,
        "scrape_configs:",
        "  - job_name: toolkits-mcp",
        "    static_configs:",
        `      - targets: ["127.0.0.1:${metricsPort}"]`,
      ].join("\n");
      await writeFile(join(dir, "prometheus.yml"), config);
      api = `http://127.0.0.1:${await freePort()}`;
      scraper = spawn(
        prometheus,
        [
          `--config.file=${join(dir, "prometheus.yml")}`,
          `--storage.tsdb.path=${join(dir, "data")}`,
          `--web.listen-address=${new URL(api).host}`,
        ],
        { stdio: "ignore" },
      );
    });
    afterAll(async () => {
      scraper?.kill("SIGTERM");
      await server?.stop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it("counts a tool call, queried through Prometheus' HTTP API", async () => {
      const client = await connectHttp("v1", server.url);
      const answer = await client.call("Pager_WhoAmI");
      await client.close();
      expect(answer.isError).toBe(false);
      const query =
        'sum(mcp_server_operation_duration_count{mcp_method_name="tools/call", gen_ai_tool_name="Pager.WhoAmI", network_transport="tcp"})';
      let counted: number | undefined;
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
        counted = await instant(api, query);
        if (counted !== undefined) break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(counted).toBe(1);
      // The deployment's alert rules load in this Prometheus too.
      const rules = (await (await fetch(`${api}/api/v1/rules`)).json()) as {
        data: { groups: { rules: { name: string }[] }[] };
      };
      const names = rules.data.groups.flatMap((group) => group.rules.map((rule) => rule.name));
      expect(names).toContain("ToolkitsMcpStoreUnavailable");
    }, 90_000);
  });
});
