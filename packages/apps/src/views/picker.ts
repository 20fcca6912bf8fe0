// Drive picker: a "Choose in Drive" button opens the server's picker page (the link from
// Sheets.GenerateFilePickerUrl, whose last segment is an opaque handle that works for 10 minutes
// and takes one pick) through the host; the view follows the pick with the app-only
// Sheets.GetFilePickerStatus and tells the model which files were picked. The Google token stays
// on the server's page: nothing here sees it.
import { button, h, trimmed } from "../ui/dom.js";
import { when } from "../ui/time.js";
import { type Data, type Shell, startView } from "../ui/view.js";

interface Picked {
  id: string;
  name: string;
}

/** How often the view asks whether the pick happened, in milliseconds. */
const POLL_MS = 2_000;

startView({
  name: "toolkits-picker",
  render(shell, data) {
    const url = typeof data.url === "string" ? data.url : "";
    const handle = /\/([A-Za-z0-9_-]{16,64})\/?$/.exec(url)?.[1];
    if (!handle) return shell.state("empty", "This result has no picker link.");
    draw(shell, url, handle, typeof data.expires_at === "string" ? data.expires_at : undefined);
  },
});

function draw(shell: Shell, url: string, handle: string, expiresAt: string | undefined): void {
  const status = h(
    "p",
    { class: "muted", attrs: { role: "status" } },
    "Pick the spreadsheets to share with your agent.",
  );
  const fallback = h("p", { class: "muted link" });
  let following: { stop(): void } | undefined;
  const choose = button(
    "Choose in Drive",
    async () => {
      following ??= shell.every(POLL_MS, () => check(shell, handle, status, () => following?.stop()));
      if (await shell.openLink(url)) {
        status.textContent = "Waiting for your pick in the browser…";
      } else {
        // The host cannot open links: the person opens it themselves.
        fallback.replaceChildren("Open this link in a browser: ", h("span", { class: "mono" }, url));
        status.textContent = "Waiting for your pick…";
      }
    },
    { class: "primary" },
  );
  const { timeZone, locale } = shell.context();
  const until = expiresAt && when(expiresAt, timeZone, locale, true);
  const expiry = until ? h("span", { class: "muted" }, `The link works until ${until}.`) : false;
  shell.show(
    h("section", { class: "picker" }, h("div", { class: "actions" }, choose, expiry), status, fallback),
  );
}

async function check(shell: Shell, handle: string, status: HTMLElement, stop: () => void): Promise<void> {
  let answer: Data;
  try {
    answer = await shell.call("Sheets.GetFilePickerStatus", { picker_id: handle });
  } catch {
    return; // Asked again at the next tick.
  }
  if (answer.status === "expired") {
    stop();
    shell.state("cancelled", "The picker link expired. Ask your agent for a new one.");
    return;
  }
  if (answer.status !== "picked") return;
  stop();
  const files = (answer.files as Picked[] | undefined) ?? [];
  shell.show(
    h(
      "section",
      { class: "picker" },
      h("p", {}, `Picked ${files.length === 1 ? "1 file" : `${files.length} files`}:`),
      h(
        "ul",
        {},
        ...files.map((file) => h("li", {}, file.name, h("span", { class: "muted mono" }, ` ${file.id}`))),
      ),
    ),
  );
  status.remove();
  const list = files.map((file) => `${trimmed(file.name, 80)} (id ${file.id})`).join(", ");
  await shell
    .tell(
      `The user picked ${files.length === 1 ? "this spreadsheet" : "these spreadsheets"} in Google Drive: ${list}. The Sheets tools can use ${files.length === 1 ? "it" : "them"} now.`,
    )
    .catch(() => {});
}
