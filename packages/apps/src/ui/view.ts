import {
  App,
  applyDocumentTheme,
  applyHostFonts,
  applyHostStyleVariables,
  type McpUiDisplayMode,
  type McpUiHostContext,
  PostMessageTransport,
} from "@modelcontextprotocol/ext-apps";
import { button, h, trimmed } from "./dom.js";

/** A tool result's data: its `structuredContent`. */
export type Data = Record<string, unknown>;

/** What a view draws with: the host connection and the few things every view does. */
export interface Shell {
  readonly app: App;
  /** The host's context so far (theme, time zone, locale, display mode). */
  context(): McpUiHostContext;
  /** Replaces the view's content with `nodes`. */
  show(...nodes: Node[]): void;
  /** Replaces the view's content with a state line: loading, empty, error or cancelled. */
  state(kind: "loading" | "empty" | "error" | "cancelled", message: string): void;
  /**
   * Calls a tool of the view's own server by canonical name (`Pager.GetIncident`), in the form the
   * host lists it; resolves to its `structuredContent`.
   * @throws Error with the tool's own text when it answers `isError`, or the host's on a refusal.
   */
  call(canonical: string, args: Data): Promise<Data>;
  /** Tells the model `text` (short: a summary, never a payload), replacing what this view told it before. */
  tell(text: string): Promise<void>;
  /** Asks the host to open `url` in the browser; false when it cannot or will not. */
  openLink(url: string): Promise<boolean>;
  /**
   * Runs `tick` every `ms` milliseconds while the view is on screen and its page visible, until the
   * host tears the view down or `stop` is called.
   */
  every(ms: number, tick: () => Promise<void> | void): { stop(): void };
}

/** What makes one view. */
export interface ViewSpec {
  name: string;
  /** Whether it offers full screen, where the host has it (large grids and lists). */
  fullscreen?: boolean;
  /** Draws a successful result; `input` is the call's arguments, when the host sent them. */
  render(shell: Shell, data: Data, input: Data | undefined): void;
  /** Redraws after the host context changed (theme colours on a canvas, time zone), when needed. */
  restyle?(shell: Shell): void;
}

/** How many characters of a failed tool's text a view shows. */
const ERROR_TEXT_MAX = 400;

/**
 * Starts a view: every handler is set before the handshake (one-shot events are otherwise lost),
 * nothing is sent to the host before it completes, and the page follows the host's theme, style
 * variables and fonts from then on.
 */
export function startView(spec: ViewSpec): Shell {
  const app = new App(
    { name: spec.name, version: "1.0.0" },
    { availableDisplayModes: spec.fullscreen ? ["inline", "fullscreen"] : ["inline"] },
    { autoResize: true },
  );
  const main = h("main", { attrs: { "aria-live": "polite" } });
  const bar = h("div", { class: "bar" });
  document.body.append(bar, main);
  const timers = new Set<() => void>();
  let input: Data | undefined;
  const shell: Shell = {
    app,
    context: () => app.getHostContext() ?? {},
    show: (...nodes) => main.replaceChildren(...nodes),
    state: (kind, message) =>
      main.replaceChildren(h("p", { class: `state ${kind}`, attrs: { role: "status" } }, message)),
    call: (canonical, args) => callTool(app, canonical, args),
    tell: async (text) => {
      await app.updateModelContext({ content: [{ type: "text", text }] });
    },
    openLink: async (url) => {
      if (!app.getHostCapabilities()?.openLinks) return false;
      return app.openLink({ url }).then(
        (answer) => !answer.isError,
        () => false,
      );
    },
    every: (ms, tick) => repeatWhileVisible(main, ms, tick, timers),
  };
  shell.state("loading", "Loading…");
  app.ontoolinput = ({ arguments: args }) => {
    input = args;
  };
  app.ontoolresult = (result) => {
    if (result.isError) return shell.state("error", trimmed(textOf(result.content), ERROR_TEXT_MAX));
    const data = dataOf(result);
    if (!data) return shell.state("empty", "The tool answered with nothing to show.");
    spec.render(shell, data, input);
  };
  app.ontoolcancelled = () => shell.state("cancelled", "The call was cancelled.");
  app.onhostcontextchanged = (change) => {
    follow(change);
    spec.restyle?.(shell);
  };
  app.onteardown = async () => {
    for (const stop of [...timers]) stop();
    return {};
  };
  const follow = (context: McpUiHostContext) => {
    if (context.theme) applyDocumentTheme(context.theme);
    if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
    if (context.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
    if (context.displayMode) document.documentElement.dataset.display = context.displayMode;
    drawBar(bar, shell, spec);
  };
  app
    .connect(new PostMessageTransport(window.parent, window.parent))
    .then(() => follow(shell.context()))
    .catch((error: Error) => shell.state("error", `Could not reach the host: ${error.message}`));
  return shell;
}

/** The full-screen toggle, when the view offers it and the host has both modes. */
function drawBar(bar: HTMLElement, shell: Shell, spec: ViewSpec): void {
  const { availableDisplayModes: modes = [], displayMode = "inline" } = shell.context();
  if (!spec.fullscreen || !modes.includes("fullscreen")) {
    bar.replaceChildren();
    return;
  }
  const next: McpUiDisplayMode = displayMode === "fullscreen" ? "inline" : "fullscreen";
  const label = next === "fullscreen" ? "Full screen" : "Exit full screen";
  bar.replaceChildren(
    button(label, () => {
      shell.app.requestDisplayMode({ mode: next }).catch(() => {});
    }),
  );
}

/** The tool's name as the host lists it: dotted when the call that made the view was, else underscored. */
function served(app: App, canonical: string): string {
  const shown = app.getHostContext()?.toolInfo?.tool.name;
  return shown?.includes(".") ? canonical : canonical.replace(".", "_");
}

async function callTool(app: App, canonical: string, args: Data): Promise<Data> {
  const result = await app.callServerTool({ name: served(app, canonical), arguments: args });
  if (result.isError) throw new Error(trimmed(textOf(result.content), ERROR_TEXT_MAX));
  const data = dataOf(result);
  if (!data) throw new Error(`${canonical} answered with no data.`);
  return data;
}

/** A result's data: `structuredContent`, else its JSON text (a host replaying an older result). */
function dataOf(result: { structuredContent?: unknown; content?: unknown }): Data | undefined {
  if (isObject(result.structuredContent)) return result.structuredContent;
  try {
    const parsed: unknown = JSON.parse(textOf(result.content));
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .map((block: { type?: unknown; text?: unknown }) => (block?.type === "text" ? String(block.text) : ""))
    .join("\n");
}

const isObject = (value: unknown): value is Data =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Runs `tick` every `ms` while `element` intersects the viewport and the page is visible (a view
 * scrolled away or in a hidden tab costs the upstream nothing); a tick still running is not doubled.
 */
function repeatWhileVisible(
  element: Element,
  ms: number,
  tick: () => Promise<void> | void,
  timers: Set<() => void>,
): { stop(): void } {
  let onScreen = true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;
  // A tick still running when stopped must not schedule the next one as it ends.
  let stopped = false;
  const visible = () => !stopped && onScreen && document.visibilityState === "visible";
  const schedule = () => {
    clearTimeout(timer);
    timer = visible() ? setTimeout(run, ms) : undefined;
  };
  const run = async () => {
    if (running || !visible()) return;
    running = true;
    try {
      await tick();
    } finally {
      running = false;
      schedule();
    }
  };
  const observer = new IntersectionObserver((entries) => {
    onScreen = entries.some((entry) => entry.isIntersecting);
    schedule();
  });
  observer.observe(element);
  document.addEventListener("visibilitychange", schedule);
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    observer.disconnect();
    document.removeEventListener("visibilitychange", schedule);
    timers.delete(stop);
  };
  timers.add(stop);
  schedule();
  return { stop };
}
