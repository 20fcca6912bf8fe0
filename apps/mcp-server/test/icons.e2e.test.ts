// Icons (MCP 2025-11-25 and 2026-07-28 `icons`) for the server and on every tool, over both
// transports and both SDK generations: served URLs over HTTP, data over stdio.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PNG_ICONS } from "../src/icons/png.js";
import { SVG_ICONS } from "../src/icons/svg.js";
import { connectHttp, connectStdio, GENERATIONS, type Icon } from "./clients.js";
import { type RunningServer, startHttpServer } from "./spawn.js";

const TOOLKIT_OF: Record<string, string> = { Pager: "pager", Sheets: "sheets", MarketingApi: "marketing" };
const toolkitOf = (tool: string) => TOOLKIT_OF[tool.split("_")[0] ?? ""] ?? "toolkits";
const served = (base: string, name: string): Icon[] => [
  { src: `${base}/icons/${name}.svg`, mimeType: "image/svg+xml", sizes: ["any"] },
  { src: `${base}/icons/${name}.png`, mimeType: "image/png", sizes: ["64x64"] },
];
const svgData = (name: keyof typeof SVG_ICONS): Icon => ({
  src: `data:image/svg+xml;base64,${Buffer.from(SVG_ICONS[name]).toString("base64")}`,
  mimeType: "image/svg+xml",
  sizes: ["any"],
});

describe("icons over Streamable HTTP", () => {
  let server: RunningServer;
  let base: string;
  beforeAll(async () => {
    server = await startHttpServer(["--sandbox"]);
    base = server.url.replace(/\/mcp$/, "");
  });
  afterAll(() => server?.stop());

  it.each(GENERATIONS)(
    "%s: are served URLs, for the server and on every tool, also at a connector URL",
    async (generation) => {
      for (const url of [server.url, `${base}/mcp/search`]) {
        const client = await connectHttp(generation, url);
        try {
          expect(client.serverInfo()?.icons).toEqual(served(base, "toolkits"));
          const tools = await client.listTools();
          expect(tools.length).toBeGreaterThan(0);
          for (const tool of tools) expect(tool.icons, tool.name).toEqual(served(base, toolkitOf(tool.name)));
        } finally {
          await client.close();
        }
      }
    },
  );

  it("serves each icon, as SVG and PNG, cacheable and inert", async () => {
    for (const name of Object.keys(SVG_ICONS)) {
      const svg = await fetch(`${base}/icons/${name}.svg`);
      expect(svg.headers.get("content-type")).toBe("image/svg+xml");
      expect(svg.headers.get("cache-control")).toBe("public, max-age=86400");
      expect(svg.headers.get("content-security-policy")).toContain("default-src 'none'");
      expect(await svg.text()).toBe(SVG_ICONS[name as keyof typeof SVG_ICONS]);
      const png = await fetch(`${base}/icons/${name}.png`);
      expect(png.headers.get("content-type")).toBe("image/png");
      expect(Buffer.from(await png.arrayBuffer()).toString("base64")).toBe(PNG_ICONS[name]);
    }
    expect((await fetch(`${base}/icons/nothing.svg`)).status).toBe(404);
  });
});

describe("icons over stdio", () => {
  it.each(GENERATIONS)(
    "%s: are data, the server's as SVG and PNG and the tools' as SVG",
    async (generation) => {
      const client = await connectStdio(generation, ["--sandbox"]);
      try {
        expect(client.serverInfo()?.icons).toEqual([
          svgData("toolkits"),
          { src: `data:image/png;base64,${PNG_ICONS.toolkits}`, mimeType: "image/png", sizes: ["64x64"] },
        ]);
        for (const tool of await client.listTools())
          expect(tool.icons, tool.name).toEqual([svgData(toolkitOf(tool.name) as keyof typeof SVG_ICONS)]);
      } finally {
        await client.close();
      }
    },
  );
});

describe("the icons' PNGs", () => {
  it("are one 64×64 PNG for each SVG", () => {
    expect(Object.keys(PNG_ICONS).sort()).toEqual(Object.keys(SVG_ICONS).sort());
    for (const [name, base64] of Object.entries(PNG_ICONS)) {
      const png = Buffer.from(base64, "base64");
      expect(png.subarray(0, 8).toString("hex"), name).toBe("89504e470d0a1a0a");
      expect(png.subarray(12, 16).toString("latin1")).toBe("IHDR");
      expect([png.readUInt32BE(16), png.readUInt32BE(20)], name).toEqual([64, 64]);
    }
  });
});
