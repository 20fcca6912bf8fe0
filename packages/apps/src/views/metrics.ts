// Campaign metrics: the series of a metrics tool (campaign, broadcast, newsletter, transactional,
// their actions', journeys' and variants' metrics, and the link metrics of each) drawn over the
// periods with Chartist as SVG, one point per period, with each series' total below.
import { LineChart } from "chartist";
import { h, trimmed } from "../ui/dom.js";
import { type Data, type Shell, startView } from "../ui/view.js";

interface Series {
  label: string;
  values: number[];
}

/** At most this many series are drawn (the largest totals), so the chart stays readable. */
const MAX_SERIES = 6;
const CHART_HEIGHT = 220;
/** At most about this many period labels along the axis; the others are left blank. */
const MAX_LABELS = 10;
// Readable on light and dark backgrounds alike.
const PALETTE = ["#3b82f6", "#f59e0b", "#10b981", "#ef4444", "#8b5cf6", "#14b8a6"];
/** The argument naming the period unit, by tool family, and its values as words. */
const UNIT_ARGS = [
  "time_period_unit",
  "report_time_unit",
  "report_period",
  "reporting_period_unit",
  "time_unit_for_report",
  "version_1_time_unit",
  "resolution",
  "metrics_resolution",
];
const UNIT_WORDS: Record<string, string> = {
  hourly: "hours",
  daily: "days",
  weekly: "weeks",
  monthly: "months",
};

let chart: LineChart | undefined;

startView({
  name: "toolkits-metrics",
  fullscreen: true,
  render(shell, data, input) {
    const series = seriesOf(data);
    if (!series.length) return shell.state("empty", "No metrics over periods in this result.");
    draw(shell, series, unitOf(input));
  },
});

/**
 * The series of `metric.series` (delivery metrics) or `journey_metric` (a campaign's journeys: the
 * same shape one level up), or one per link (`links[].metric.series`), largest totals first.
 */
function seriesOf(data: Data): Series[] {
  const numbers = (values: unknown) =>
    Array.isArray(values) ? values.map((value) => Number(value) || 0) : [];
  const all: Series[] = [];
  const metric = (data.metric as { series?: Record<string, unknown> } | undefined)?.series;
  const journeys = data.journey_metric as Record<string, unknown> | undefined;
  for (const [label, values] of Object.entries({ ...metric, ...journeys }))
    all.push({ label, values: numbers(values) });
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

function draw(shell: Shell, series: Series[], unit: string): void {
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
  chart?.detach();
  const every = Math.ceil(periods / MAX_LABELS);
  const labels = Array.from({ length: periods }, (_, index) => index + 1);
  chart = new LineChart(
    figure,
    { labels, series: drawn.map((entry) => entry.values) },
    {
      height: `${CHART_HEIGHT}px`,
      fullWidth: true,
      // Periods are counted, not continuous: straight lines between the points.
      lineSmooth: false,
      // Counts: the axis starts at zero, so the heights compare.
      low: 0,
      chartPadding: { right: 16 },
      axisX: { labelInterpolationFnc: (label, index) => (index % every === 0 ? label : null) },
      axisY: { onlyInteger: drawn.every((entry) => entry.values.every(Number.isInteger)) },
    },
  );
  // Through CSSOM, which no CSP refuses; grid and labels take the theme's variables in metrics.css.
  chart.on("draw", (event) => {
    const colour = PALETTE[event.seriesIndex ?? -1];
    if (colour && (event.type === "line" || event.type === "point"))
      event.element.getNode().style.stroke = colour;
  });
}

/** The colour of a drawn series, next to its name in the totals (set through CSSOM, which no CSP refuses). */
function swatch(index: number): HTMLSpanElement {
  const mark = h("span", { class: "swatch" });
  mark.style.background = PALETTE[index] ?? "transparent";
  return mark;
}
