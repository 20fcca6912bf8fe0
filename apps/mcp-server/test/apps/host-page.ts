// The test host's page, bundled for Chromium: ext-apps' AppBridge with no MCP client of its own,
// the view in a sandboxed srcdoc frame under the CSP its resource declares, and every call the view
// makes handed to the test (window.host*, exposed by Playwright), which makes it on the real server.
import {
  AppBridge,
  type McpUiHostContext,
  type McpUiResourceCsp,
  PostMessageTransport,
} from "@modelcontextprotocol/ext-apps/app-bridge";
import type { Mount } from "./host.js";

type Exposed = {
  hostCall(params: { name: string; arguments?: Record<string, unknown> }): Promise<Record<string, unknown>>;
  hostRecord(kind: string, params: unknown): Promise<void>;
  hostOpenLink(url: string): Promise<void>;
};
type HostWindow = Window &
  Exposed & {
    mount(mount: Mount): Promise<void>;
    context(change: McpUiHostContext): void;
    teardown(): Promise<void>;
  };
const host = window as unknown as HostWindow;
let bridge: AppBridge | undefined;
let current: McpUiHostContext = {};

/**
 * The CSP a host must apply to a view (MCP Apps 2026-01-26): nothing but inline and own scripts and
 * styles, own or data: images and media, and only the origins the resource declares.
 */
function cspOf(csp: McpUiResourceCsp | undefined): string {
  const extra = (domains: string[] | undefined) => (domains?.length ? ` ${domains.join(" ")}` : "");
  const resources = extra(csp?.resourceDomains);
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline'${resources}`,
    `style-src 'self' 'unsafe-inline'${resources}`,
    `img-src 'self' data:${resources}`,
    `font-src 'self' data:${resources}`,
    `media-src 'self' data:${resources}`,
    `connect-src ${csp?.connectDomains?.length ? csp.connectDomains.join(" ") : "'none'"}`,
    `frame-src ${csp?.frameDomains?.length ? csp.frameDomains.join(" ") : "'none'"}`,
    `base-uri ${csp?.baseUriDomains?.length ? csp.baseUriDomains.join(" ") : "'none'"}`,
  ].join("; ");
}

host.mount = async ({ html, csp, args, result, context }) => {
  const frame = document.createElement("iframe");
  frame.id = "view";
  frame.setAttribute("sandbox", "allow-scripts");
  document.body.append(frame);
  current = context;
  bridge = new AppBridge(
    null,
    { name: "toolkits-test-host", version: "1.0.0" },
    { openLinks: {}, serverTools: {}, updateModelContext: { text: {} }, message: { text: {} }, logging: {} },
    { hostContext: context },
  );
  bridge.oncalltool = (params) => host.hostCall(params) as never;
  bridge.onupdatemodelcontext = async (params) => {
    await host.hostRecord("context", params);
    return {};
  };
  bridge.onmessage = async (params) => {
    await host.hostRecord("message", params);
    return {};
  };
  bridge.onopenlink = async ({ url }) => {
    await host.hostOpenLink(url);
    return {};
  };
  bridge.onrequestdisplaymode = async ({ mode }) => {
    host.context({ ...current, displayMode: mode });
    return { mode };
  };
  bridge.onsizechange = ({ height }) => {
    if (height) frame.style.height = `${height}px`;
  };
  bridge.oninitialized = () => {
    host.hostRecord("initialized", {}).catch(() => {});
    bridge?.sendToolInput({ arguments: args });
    bridge?.sendToolResult(result as never);
  };
  const view = frame.contentWindow as Window;
  await bridge.connect(new PostMessageTransport(view, view));
  const meta = `<meta http-equiv="Content-Security-Policy" content="${cspOf(csp)}">`;
  frame.srcdoc = html.replace("<head>", `<head>${meta}`);
};

host.context = (context) => {
  current = context;
  bridge?.setHostContext(context);
};

host.teardown = async () => {
  await bridge?.teardownResource({});
};
