// Incidents: Pager.ListIncidents as rows, Pager.GetIncident as a detail card. A row opens its
// detail through Pager.GetIncident; the list refreshes through the app-only Pager.RefreshIncidents
// while it is on screen.
import { button, h, trimmed } from "../ui/dom.js";
import { age } from "../ui/time.js";
import { type Data, type Shell, startView } from "../ui/view.js";

interface Ref {
  id: string;
  name?: string;
}
interface Incident {
  id: string;
  number: number;
  title: string;
  status: string;
  urgency: string;
  priority?: string;
  created_at: string;
  service: Ref;
  assignees?: Ref[];
  html_url?: string;
  escalation_policy?: Ref;
  acknowledged_by?: (Ref & { at: string })[];
  alert_counts?: { all: number; triggered: number; resolved: number };
  conference_url?: string;
}

/** How often the list is read again while on screen, in milliseconds. */
const REFRESH_MS = 30_000;

let list: { incidents: Incident[]; args: Data } | undefined;

startView({
  name: "toolkits-incidents",
  fullscreen: true,
  render(shell, data, input) {
    if (Array.isArray(data.incidents)) {
      list = { incidents: data.incidents as Incident[], args: input ?? {} };
      drawList(shell);
      shell.every(REFRESH_MS, () => refresh(shell));
    } else if (data.incident) {
      drawDetail(shell, data.incident as Incident, false);
    } else {
      shell.state("empty", "No incident in this result.");
    }
  },
});

async function refresh(shell: Shell): Promise<void> {
  if (!list || document.querySelector(".detail")) return;
  try {
    const data = await shell.call("Pager.RefreshIncidents", list.args);
    list.incidents = (data.incidents as Incident[] | undefined) ?? [];
    drawList(shell);
  } catch {
    // The rows shown stay; the next refresh tries again.
  }
}

const names = (refs: Ref[] | undefined) => (refs ?? []).map((ref) => ref.name ?? ref.id).join(", ");

function drawList(shell: Shell): void {
  const incidents = list?.incidents ?? [];
  if (!incidents.length) {
    shell.state("empty", "No incidents match.");
    return;
  }
  const now = Date.now();
  const rows = incidents.map((incident) =>
    h(
      "tr",
      {
        class: "row",
        attrs: { tabindex: "0", "data-id": incident.id },
        onclick: () => open(shell, incident.id),
      },
      h("td", {}, h("span", { class: `badge ${incident.status}` }, incident.status)),
      h(
        "td",
        {},
        h("span", { class: incident.urgency }, incident.urgency),
        incident.priority ? ` ${incident.priority}` : "",
      ),
      h("td", {}, h("span", { class: "muted" }, `#${incident.number} `), incident.title),
      h("td", {}, incident.service.name ?? incident.service.id),
      h("td", {}, names(incident.assignees) || h("span", { class: "muted" }, "nobody")),
      h("td", { class: "age", title: incident.created_at }, age(incident.created_at, now)),
    ),
  );
  const head = ["Status", "Urgency", "Incident", "Service", "Assignees", "Age"].map((label) =>
    h("th", {}, label),
  );
  shell.show(
    h(
      "div",
      { class: "bounded" },
      h("table", {}, h("thead", {}, h("tr", {}, ...head)), h("tbody", {}, ...rows)),
    ),
  );
}

async function open(shell: Shell, id: string): Promise<void> {
  shell.state("loading", "Loading the incident…");
  try {
    const data = await shell.call("Pager.GetIncident", { incident_id: id });
    const incident = data.incident as Incident;
    drawDetail(shell, incident, true);
    await shell.tell(
      `The user opened incident #${incident.number} (${incident.id}) in the incidents view: "${trimmed(incident.title)}", ${incident.status}, ${incident.urgency} urgency.`,
    );
  } catch (error) {
    shell.state("error", (error as Error).message);
  }
}

function drawDetail(shell: Shell, incident: Incident, back: boolean): void {
  const field = (label: string, value: Node | string | undefined) =>
    value ? [h("dt", {}, label), h("dd", {}, value)] : [];
  const alerts = incident.alert_counts;
  const acks = (incident.acknowledged_by ?? []).map((ack) => ack.name ?? ack.id).join(", ");
  shell.show(
    h(
      "article",
      { class: "detail" },
      h("h2", {}, h("span", { class: "muted" }, `#${incident.number} `), incident.title),
      h(
        "dl",
        {},
        ...field("Status", h("span", { class: `badge ${incident.status}` }, incident.status)),
        ...field("Urgency", incident.urgency + (incident.priority ? `, ${incident.priority}` : "")),
        ...field("Service", incident.service.name ?? incident.service.id),
        ...field("Escalation policy", incident.escalation_policy?.name),
        ...field("Assignees", names(incident.assignees) || "nobody"),
        ...field("Acknowledged by", acks),
        ...field(
          "Alerts",
          alerts && `${alerts.all} (${alerts.triggered} triggered, ${alerts.resolved} resolved)`,
        ),
        ...field("Opened", `${age(incident.created_at, Date.now())} ago`),
      ),
      h(
        "div",
        { class: "actions" },
        back && list ? button("Back to the list", () => drawList(shell)) : false,
        incident.html_url
          ? button("Open in PagerDuty", () => openLink(shell, incident.html_url ?? ""))
          : false,
      ),
    ),
  );
}

async function openLink(shell: Shell, url: string): Promise<void> {
  if (await shell.openLink(url)) return;
  const note = h("p", { class: "muted" }, "Open this link in a browser: ", h("span", { class: "mono" }, url));
  document.querySelector(".detail")?.append(note);
}
