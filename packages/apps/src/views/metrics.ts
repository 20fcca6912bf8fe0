// Campaign metrics: the series of a metrics tool (campaign, broadcast, newsletter, transactional,
// and their link metrics) drawn over the periods with uPlot, one point per period, with each
// series' total below.
import uPlot from "uplot";
import { h, trimmed } from "../ui/dom.js";
import { type Data, type Shell, startView } from "../ui/view.js";

interface Series {
  label: string;
  values: number[];
}

/** At most this many series are drawn (the largest totals), so the chart stays readable. */
const MAX_SERIES = 6;
const CHART_HEIGHT = 220;
// Readable on light and dark backgrounds alike.
const PALETTE = ["#3b82f6", "#f59e0b", "#10b981", "#ef4444", "#8b5cf6", "#14b8a6"];
/** The argument naming the period unit, by tool family, and its values as words. */
const UNIT_ARGS = [
  "time_period_unit",
  "report_time_unit",
  "time_unit_for_report",
  "version_1_time_unit",
  "resolution",
];
const UNIT_WORDS: Record<string, string> = {
  hourly: "hours",
  daily: "days",
  weekly: "weeks",
  monthly: "months",
};

let chart: uPlot | undefined;
let shown: { series: Series[]; unit: string } | undefined;

startView({
  name: "toolkits-metrics",
  fullscreen: true,
  render(shell, data, input) {
    const series = seriesOf(data);
    if (!series.length) return shell.state("empty", "No metrics over periods in this result.");
    shown = { series, unit: unitOf(input) };
    draw(shell);
  },
  // The canvas takes its colours when drawn: a new theme needs a new drawing.
  restyle(shell) {
    if (shown) draw(shell);
  },
});

/** The series of `metric.series`, or one per link (`links[].metric.series`), largest totals first. */
function seriesOf(data: Data): Series[] {
  const numbers = (values: unknown) =>
    Array.isArray(values) ? values.map((value) => Number(value) || 0) : [];
  const all: Series[] = [];
  const metric = (data.metric as { series?: Record<string, unknown> } | undefined)?.series;
  for (const [label, values] of Object.entries(metric ?? {})) all.push({ label, values: numbers(values) });
  for (const entry of (data.links as
    | { link?: { href?: string; id?: number }; metric?: { series?: Record<string, unknown> } }[]
    | undefined) ?? []) {
    const [name, values] = Object.entries(entry.metric?.series ?? {})[0] ?? [];
    if (!name) continue;
    const link = entry.link?.href ?? `link ${entry.link?.id ?? ""}`;
    all.push({ label: `${trimmed(link, 60)} (${name})`, values: numbers(values) });
  }
  const total = (series: Series) => series.values.reduce((sum, value) => sum + value, 0);
  return all.filter((series) => series.values.length).sort((a, b) => total(b) - total(a));
}

function unitOf(input: Data | undefined): string {
  const value = UNIT_ARGS.map((name) => input?.[name]).find((unit) => typeof unit === "string") as
    | string
    | undefined;
  return value ? (UNIT_WORDS[value] ?? value) : "periods";
}

function draw(shell: Shell): void {
  if (!shown) return;
  const { series, unit } = shown;
  const drawn = series.slice(0, MAX_SERIES);
  const periods = Math.max(...drawn.map((entry) => entry.values.length));
  const figure = h("figure", { class: "chart", attrs: { "data-points": String(periods) } });
  const caption = h(
    "figcaption",
    { class: "muted" },
    `${periods} ${periods === 1 ? unit.replace(/s$/, "") : unit}, oldest first`,
  );
  const totals = h(
    "table",
    { class: "totals" },
    h(
      "tbody",
      {},
      ...series.map((entry, index) =>
        h(
          "tr",
          {},
          h("td", {}, swatch(index), entry.label),
          h(
            "td",
            { class: "num" },
            entry.values.reduce((a, b) => a + b, 0),
          ),
        ),
      ),
    ),
  );
  shell.show(figure, caption, h("div", { class: "bounded" }, totals));
  chart?.destroy();
  const text = resolved("--text-2");
  const grid = resolved("--border");
  const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
  chart = new uPlot(
    {
      width: Math.max(240, figure.clientWidth || document.body.clientWidth - 24),
      height: CHART_HEIGHT,
      scales: { x: { time: false } },
      // Periods are whole: ticks on whole numbers only.
      axes: [{ ...axis, label: unit, incrs: [1, 2, 5, 10, 20, 50] }, axis],
      legend: { show: false },
      series: [
        { label: "period" },
        ...drawn.map((entry, index) => ({
          label: entry.label,
          stroke: PALETTE[index],
          width: 2,
          points: { show: true },
        })),
      ],
    },
    [Array.from({ length: periods }, (_, index) => index + 1), ...drawn.map((entry) => entry.values)],
    figure,
  );
}

/**
 * A colour variable as the canvas needs it: resolved by the browser (host variables and
 * `light-dark()` fallbacks alike) through an element that wears it.
 */
function resolved(variable: string): string {
  const probe = h("span", { class: "probe" });
  probe.style.color = `var(${variable})`;
  document.body.append(probe);
  const colour = getComputedStyle(probe).color;
  probe.remove();
  return colour;
}

/** The colour of a drawn series, next to its name in the totals (set through CSSOM, which no CSP refuses). */
function swatch(index: number): HTMLSpanElement {
  const mark = h("span", { class: "swatch" });
  mark.style.background = PALETTE[index] ?? "transparent";
  return mark;
}
