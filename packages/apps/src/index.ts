import { readFile } from "node:fs/promises";
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
import type { AnyToolDefinition } from "@toolkits/core";
import { refreshIncidents } from "@toolkits/pager";
import { getFilePickerStatus } from "@toolkits/sheets";

/** The MCP Apps extension's id, as clients and servers declare it in their capabilities (ext-apps' `EXTENSION_ID`). */
export const UI_EXTENSION = EXTENSION_ID;

/** The MIME type of a view resource (MCP Apps 2026-01-26; ext-apps' `RESOURCE_MIME_TYPE`). */
export const VIEW_MIME_TYPE = RESOURCE_MIME_TYPE;

/** The ids of the views, which name their files and `ui://` URIs. */
export type ViewId = "incidents" | "oncall" | "grid" | "picker" | "metrics";

/** One view: an HTML page a host renders inline with the result of any of `tools`. */
export interface AppView {
  id: ViewId;
  /** `ui://toolkits/<id>`: the resource the tools name in `_meta.ui.resourceUri`. */
  uri: string;
  title: string;
  description: string;
  /** Canonical names of the tools whose results it shows (they keep their text for the model). */
  tools: readonly string[];
  /**
   * Tools only the view calls (refresh, status), listed with `visibility: ["app"]` to a client
   * rendering views. Every one is read-only: a host that ignores `visibility` may show it to the model.
   */
  appTools: readonly AnyToolDefinition[];
}

const view = (id: ViewId, fields: Omit<AppView, "id" | "uri">): AppView => ({
  id,
  uri: `ui://toolkits/${id}`,
  ...fields,
});

/**
 * The metrics tools whose answers are series over periods: `metric.series` (delivery metrics),
 * `journey_metric` (a campaign's journeys, one count per resolution step) or one series per link.
 */
const METRICS_TOOLS = [
  "MarketingApi.GetCampaignMetrics",
  "MarketingApi.GetCampaignLinkMetrics",
  "MarketingApi.GetCampaignActionMetrics",
  "MarketingApi.GetCampaignActionLinkMetrics",
  "MarketingApi.GetCampaignJourneyMetrics",
  "MarketingApi.GetBroadcastMetrics",
  "MarketingApi.GetBroadcastLinkMetrics",
  "MarketingApi.GetBroadcastActionMetrics",
  "MarketingApi.GetBroadcastActionLinkMetrics",
  "MarketingApi.GetNewsletterMetrics",
  "MarketingApi.GetNewsletterLinkMetrics",
  "MarketingApi.GetNewsletterVariantMetrics",
  "MarketingApi.GetNewsletterVariantClickMetrics",
  "MarketingApi.GetTransactionalMessageMetrics",
  "MarketingApi.GetTransactionalLinkMetrics",
];

/** Every view, in the order resources list them. */
export const VIEWS: readonly AppView[] = [
  view("incidents", {
    title: "Incidents",
    description:
      "Incidents as rows with status, urgency, priority, service, assignees and age; a row opens its detail.",
    tools: ["Pager.ListIncidents", "Pager.GetIncident"],
    appTools: [refreshIncidents],
  }),
  view("oncall", {
    title: "On call now",
    description: "Who holds each escalation level of each policy, and until when, in the viewer's time zone.",
    tools: ["Pager.ListOnCalls", "Pager.WhoAmI"],
    appTools: [],
  }),
  view("grid", {
    title: "Sheet grid",
    description:
      "A window of a sheet with column letters and row numbers; a selection is told to the model as A1 ranges.",
    tools: ["Sheets.GetSpreadsheet"],
    appTools: [],
  }),
  view("picker", {
    title: "Drive picker",
    description: "A button that opens the Google Drive picker, then tells the model which files were picked.",
    tools: ["Sheets.GenerateFilePickerUrl"],
    appTools: [getFilePickerStatus],
  }),
  view("metrics", {
    title: "Campaign metrics",
    description:
      "A chart of the metrics of a campaign, broadcast, newsletter or transactional message over the periods, or of one of their actions, journeys, variants or links.",
    tools: METRICS_TOOLS,
    appTools: [],
  }),
];

/** Where the built views are: `dist/views/<id>.html` of this package, or next to a bundle that copied them. */
const VIEWS_DIR = new URL("../dist/views/", import.meta.url);

/**
 * A view's HTML: one self-contained document (scripts and styles inline, no external request).
 * @throws Error (ENOENT) when the package was not built.
 */
export function viewHtml(view: AppView, dir: URL = VIEWS_DIR): Promise<string> {
  return readFile(new URL(`${view.id}.html`, dir), "utf8");
}
