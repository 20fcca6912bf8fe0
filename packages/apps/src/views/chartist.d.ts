// The part of Chartist's API the metrics view uses. Chartist's own declarations re-export with
// extensionless paths, which TypeScript's NodeNext resolution cannot follow, so they are stated here.
declare module "chartist" {
  /** What a `draw` listener is given: one SVG element as it is drawn. */
  export interface DrawEvent {
    type: string;
    /** Index into the data's `series`, for lines and points. */
    seriesIndex?: number;
    element: { getNode(): SVGElement };
  }

  export interface LineChartOptions {
    /** Height of the chart in pixels (a number) or any CSS length. */
    height?: number | string;
    /** Stretches the chart to the container's full width. */
    fullWidth?: boolean;
    /** false: straight lines between points (the default smooths them). */
    lineSmooth?: boolean;
    /** The value axis' lowest value (default: the data's). */
    low?: number;
    chartPadding?: { top?: number; right?: number; bottom?: number; left?: number };
    axisX?: { labelInterpolationFnc?: (label: number, index: number) => number | string | null };
    axisY?: { onlyInteger?: boolean };
  }

  /** A responsive SVG line chart drawn into `container`; redrawn on window resize until detached. */
  export class LineChart {
    constructor(
      container: Element,
      data: { labels: number[]; series: number[][] },
      options?: LineChartOptions,
    );
    on(event: "draw", listener: (event: DrawEvent) => void): this;
    /** Stops redrawing on resize. */
    detach(): void;
  }
}
