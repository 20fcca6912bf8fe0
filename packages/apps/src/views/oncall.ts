// On call now: Pager.ListOnCalls grouped by escalation policy and level, and Pager.WhoAmI as the
// signed-in person's own card; times in the time zone the host gives.
import { h } from "../ui/dom.js";
import { when } from "../ui/time.js";
import { type Data, type Shell, startView } from "../ui/view.js";

interface Ref {
  id: string;
  name?: string;
}
interface Shift {
  user?: Ref;
  escalation_policy: Ref;
  level: number;
  schedule?: Ref;
  start?: string;
  end?: string;
}

let last: Data | undefined;

startView({
  name: "toolkits-oncall",
  render(shell, data) {
    last = data;
    draw(shell, data);
  },
  // A new time zone or locale changes every time shown.
  restyle(shell) {
    if (last) draw(shell, last);
  },
});

function draw(shell: Shell, data: Data): void {
  if (Array.isArray(data.oncalls)) drawPolicies(shell, data.oncalls as Shift[]);
  else if (data.user) drawMe(shell, data);
  else shell.state("empty", "Nobody is on call in this result.");
}

const nameOf = (ref: Ref | undefined) => ref?.name ?? ref?.id ?? "";

/** "until <time>", "from <time>", both, or "permanently": a shift's bounds in the host's time zone. */
function span(shell: Shell, shift: Shift): string {
  const { timeZone, locale } = shell.context();
  const at = (iso: string) => when(iso, timeZone, locale);
  const start = shift.start && Date.parse(shift.start) > Date.now() ? `from ${at(shift.start)} ` : "";
  return shift.end ? `${start}until ${at(shift.end)}` : start ? start.trim() : "permanently";
}

function drawPolicies(shell: Shell, shifts: Shift[]): void {
  if (!shifts.length) {
    shell.state("empty", "Nobody is on call for these policies.");
    return;
  }
  const policies = new Map<string, { policy: Ref; shifts: Shift[] }>();
  for (const shift of shifts) {
    const entry = policies.get(shift.escalation_policy.id) ?? { policy: shift.escalation_policy, shifts: [] };
    entry.shifts.push(shift);
    policies.set(shift.escalation_policy.id, entry);
  }
  const cards = [...policies.values()].map(({ policy, shifts: held }) =>
    h(
      "section",
      { class: "policy" },
      h("h2", {}, nameOf(policy)),
      h(
        "table",
        {},
        h(
          "tbody",
          {},
          ...held
            .sort((a, b) => a.level - b.level)
            .map((shift) =>
              h(
                "tr",
                {},
                h("td", { class: "level" }, `Level ${shift.level}`),
                h(
                  "td",
                  {},
                  nameOf(shift.user),
                  shift.schedule ? h("div", { class: "muted" }, nameOf(shift.schedule)) : false,
                ),
                h("td", { class: "until", title: shift.end ?? "" }, span(shell, shift)),
              ),
            ),
        ),
      ),
    ),
  );
  shell.show(h("div", { class: "bounded" }, ...cards), zoneNote(shell));
}

function drawMe(shell: Shell, data: Data): void {
  const user = data.user as Ref & { email?: string };
  const current = (data.current_shifts as Shift[] | undefined) ?? [];
  const next = data.next_shift as Shift | undefined;
  const line = (shift: Shift) =>
    h(
      "li",
      {},
      `${nameOf(shift.escalation_policy)}, level ${shift.level}`,
      h("span", { class: "muted" }, ` ${span(shell, shift)}`),
    );
  shell.show(
    h(
      "section",
      { class: "policy" },
      h("h2", {}, nameOf(user)),
      h(
        "p",
        { class: data.on_call_now ? "on" : "muted" },
        data.on_call_now ? "On call now" : "Not on call now",
      ),
      current.length ? h("ul", {}, ...current.map(line)) : false,
      next ? h("p", { class: "muted" }, "Next shift:") : false,
      next ? h("ul", {}, line(next)) : false,
    ),
    zoneNote(shell),
  );
}

const zoneNote = (shell: Shell) =>
  h(
    "p",
    { class: "muted zone" },
    `Times in ${shell.context().timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone}.`,
  );
