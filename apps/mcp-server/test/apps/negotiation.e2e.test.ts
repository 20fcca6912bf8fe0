// MCP Apps negotiation against the built server, with real clients of both SDK generations: a
// client declaring the extension gets `_meta.ui`, the app-only tools and the views; one known not
// to gets exactly the listing of the tool snapshots; a stateless 2025-11-25 HTTP client, whose
// support is unknown, keeps `_meta.ui` and sees only harmless app-only tools.
import { readdirSync, readFileSync } from "node:fs";
import { UI_EXTENSION, VIEW_MIME_TYPE, VIEWS } from "@toolkits/apps";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GENERATIONS, modernToolsList } from "../clients.js";
import { type RunningServer, startHttpServer } from "../spawn.js";
import { type AppsClient, type AppsTool, appsClient, RENDERS_VIEWS } from "./clients.js";

const SNAPSHOTS = new URL("../__toolsnaps__/", import.meta.url);
/**
 * A tool without its icons, which differ by where the server is reached (URLs on its own origin
 * over HTTP, data over stdio) and are checked in icons.e2e.test.ts.
 */
const iconless = ({ icons: _, ...tool }: AppsTool & { icons?: unknown }): AppsTool => tool;
/** What tools/list served before MCP Apps, one file per tool (test/__toolsnaps__), icons aside. */
const SNAPSHOTTED = readdirSync(SNAPSHOTS)
  .filter((file) => file.endsWith(".json"))
  .map((file) => iconless(JSON.parse(readFileSync(new URL(file, SNAPSHOTS), "utf8")) as AppsTool));
const APP_ONLY = ["Pager_RefreshIncidents", "Sheets_GetFilePickerStatus"];
const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : 1);

const opened: AppsClient[] = [];
const open = async (...args: Parameters<typeof appsClient>) => {
  const client = await appsClient(...args);
  opened.push(client);
  return client;
};
afterAll(async () => {
  for (const client of opened.splice(0)) await client.close();
});

/** Checks a listing as a client rendering views sees it. */
function expectViews(tools: AppsTool[]): void {
  const names = tools.map((tool) => tool.name);
  expect(names).toEqual(expect.arrayContaining(APP_ONLY));
  expect(tools).toHaveLength(SNAPSHOTTED.length + APP_ONLY.length);
  for (const view of VIEWS) {
    for (const canonical of view.tools) {
      const tool = tools.find((entry) => entry.name === canonical.replace(".", "_"));
      expect(tool?._meta?.ui, canonical).toEqual({ resourceUri: view.uri, visibility: ["model", "app"] });
      expect(tool?._meta?.["ui/resourceUri"]).toBe(view.uri);
    }
  }
  for (const name of APP_ONLY) {
    expect(tools.find((tool) => tool.name === name)?._meta?.ui?.visibility).toEqual(["app"]);
  }
  // Apart from `_meta`, every tool is listed exactly as its snapshot says.
  const snapshots = new Map(SNAPSHOTTED.map((tool) => [tool.name, tool]));
  for (const { _meta, ...tool } of tools.filter((entry) => !APP_ONLY.includes(entry.name))) {
    expect(iconless(tool), tool.name).toEqual(snapshots.get(tool.name));
  }
}

describe.each(GENERATIONS)("MCP Apps over stdio, %s client", (generation) => {
  it("declaring the extension: _meta.ui on the views' tools, the app-only tools, and the views as resources", async () => {
    const client = await open(generation, { stdio: ["--sandbox"] }, RENDERS_VIEWS);
    expectViews(await client.tools());
    expect(client.serverExtensions()?.[UI_EXTENSION]).toEqual({ mimeTypes: [VIEW_MIME_TYPE] });
    const resources = await client.resources();
    expect(resources.map((resource) => resource.uri)).toEqual(VIEWS.map((view) => view.uri));
    for (const { uri } of resources) {
      const [content] = await client.read(uri);
      expect(content?.mimeType).toBe(VIEW_MIME_TYPE);
      expect(content?.text).toMatch(/^<!doctype html>/);
      // No origin at all: the views reach only their own server's tools, through the host.
      expect(content?._meta?.ui).toEqual({
        csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
        prefersBorder: true,
      });
    }
  });

  it("not declaring it: exactly the snapshots' listing, no resources, and no app-only tool to call", async () => {
    const client = await open(generation, { stdio: ["--sandbox"] });
    expect((await client.tools()).map(iconless).sort(byName)).toEqual([...SNAPSHOTTED].sort(byName));
    expect(await client.resources()).toEqual([]);
    const refused = await client.call("Pager_RefreshIncidents", {});
    expect(refused.isError).toBe(true);
  });
});

describe("MCP Apps over Streamable HTTP", () => {
  let server: RunningServer;
  let off: RunningServer;
  beforeAll(async () => {
    [server, off] = await Promise.all([
      startHttpServer(["--sandbox"]),
      startHttpServer(["--sandbox", "--apps", "off"]),
    ]);
  });
  afterAll(async () => {
    await Promise.all([server?.stop(), off?.stop()]);
  });

  it("a 2026-07-28 client declaring the extension in each request gets the views", async () => {
    const client = await open("v2", { url: server.url }, RENDERS_VIEWS);
    expectViews(await client.tools());
    expect((await client.resources()).length).toBe(VIEWS.length);
    const refreshed = await client.call("Pager_RefreshIncidents", { limit: 2 });
    expect(refreshed.isError).toBeFalsy();
    expect((refreshed.structuredContent as { incidents: unknown[] }).incidents).toHaveLength(2);
  });

  it("a 2026-07-28 client not declaring it gets the snapshots' listing", async () => {
    const client = await open("v2", { url: server.url });
    expect((await client.tools()).map(iconless).sort(byName)).toEqual([...SNAPSHOTTED].sort(byName));
    expect(await client.resources()).toEqual([]);
  });

  it("a stateless 2025-11-25 client, whose support is unknown, keeps _meta.ui and gets only read-only app-only tools", async () => {
    // Its initialize went to another request: this server keeps no session to look it up in.
    const client = await open("v1", { url: server.url });
    const tools = await client.tools();
    expectViews(tools);
    for (const name of APP_ONLY) {
      const tool = tools.find((entry) => entry.name === name);
      expect(tool?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    }
  });

  it("with --apps off, every client gets the snapshots' listing and the server declares no extension", async () => {
    for (const generation of GENERATIONS) {
      const client = await open(generation, { url: off.url }, RENDERS_VIEWS);
      expect((await client.tools()).map(iconless).sort(byName)).toEqual([...SNAPSHOTTED].sort(byName));
      expect(client.serverExtensions()?.[UI_EXTENSION]).toBeUndefined();
    }
  });

  it("caches tools/list privately when it differs by client, publicly with --apps off", async () => {
    const list = (url: string) => modernToolsList(url, RENDERS_VIEWS);
    expect(await list(server.url)).toMatchObject({ cacheScope: "private" });
    expect(await list(off.url)).toMatchObject({ cacheScope: "public" });
  });
});
