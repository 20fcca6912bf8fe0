import type { PageServices } from "@toolkits/core";
import { messagePage, pickerPage } from "./page.js";
import { findPickerSession, type PickedFile, recordPick } from "./session.js";

/** Path prefix of every picker URL; the session id follows it. */
export const PICKER_PATH = "/sheets/picker/";
/** The form of a picker session id, the last segment of its URL. */
export const PICKER_ID = /^[A-Za-z0-9_-]{16,64}$/;
const ROUTE = /^\/sheets\/picker\/([A-Za-z0-9_-]{16,64})(\/picked)?\/?$/;
const MAX_FILES = 100;
const MAX_TEXT = 2_000;
/** A report of MAX_FILES files fits well within this; larger bodies are refused unread. */
const MAX_BODY_BYTES = 512 * 1024;

const HTML_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  // The page carries an access token: keep it out of caches, referrers and other sites' frames
  // (X-Frame-Options for browsers that predate CSP's frame-ancestors).
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "content-security-policy": "frame-ancestors 'none'",
  "x-frame-options": "DENY",
};

const html = (status: number, body: string) => new Response(body, { status, headers: HTML_HEADERS });
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store" },
  });

/**
 * Serves the file picker for the composed server (mount it on any fetch-style HTTP server), its
 * sessions read from and written to `services.state`, the store the tools opened them in:
 * - `GET /sheets/picker/<session>`: the picker page (HTML), while the session lives (10 minutes) and no pick was reported;
 * - `POST /sheets/picker/<session>/picked` with JSON `{files: [{id, name, url?, mimeType?}]}`: records the pick,
 *   ends the session and answers `{files, message}` (400 for a malformed body, 409 when already picked,
 *   413 past 512 KiB, 415 for a body not declared `application/json`, which a page elsewhere can
 *   only send after a CORS preflight).
 * Unknown or expired sessions get a 404 page; other methods 405. Where several people share the
 * server, the host serves these only to a signed-in browser, with `services.state` that person's:
 * a link then works only for the person whose tool made it.
 * @returns `undefined` when the path is not under `/sheets/picker/`, so the caller can route it elsewhere.
 */
export async function handlePickerRequest(
  request: Request,
  services: PageServices,
): Promise<Response | undefined> {
  const { pathname } = new URL(request.url);
  if (!pathname.startsWith(PICKER_PATH)) return undefined;
  const match = ROUTE.exec(pathname);
  const session = match?.[1] ? await findPickerSession(services.state, match[1]) : undefined;
  if (!match || !session) {
    return html(
      404,
      messagePage(
        "Link expired",
        "This picker link has expired or does not exist. Ask your agent for a new one.",
      ),
    );
  }
  if (match[2]) {
    if (request.method !== "POST") return json(405, { error: "Use POST." });
    if (session.picked) return json(409, { error: "This picker link was already used." });
    if (!isJson(request.headers.get("content-type"))) return json(415, { error: "Send the files as JSON." });
    if (Number(request.headers.get("content-length") ?? 0) > MAX_BODY_BYTES) {
      return json(413, { error: "The report is too large." });
    }
    const files = pickedFiles(await request.json().catch(() => undefined));
    if (!files)
      return json(400, { error: `Send JSON {"files": [{"id", "name"}]} with 1 to ${MAX_FILES} files.` });
    await recordPick(services.state, session, files);
    return json(200, {
      files: files.map(({ id, name }) => ({ id, name })),
      message: `Done: the agent can now use ${files.length === 1 ? "this spreadsheet" : `these ${files.length} spreadsheets`}. You can return to your agent.`,
    });
  }
  if (request.method !== "GET") return html(405, messagePage("Not allowed", "Open this link in a browser."));
  if (session.picked) {
    return html(
      200,
      messagePage("Already picked", "You picked these; you can return to your agent.", session.picked),
    );
  }
  return html(200, pickerPage(session));
}

const isJson = (type: string | null) => type?.split(";", 1)[0]?.trim().toLowerCase() === "application/json";

/** The page's report as files, or `undefined` when it is malformed. */
function pickedFiles(body: unknown): PickedFile[] | undefined {
  const files = (body as { files?: unknown } | undefined)?.files;
  if (!Array.isArray(files) || files.length === 0 || files.length > MAX_FILES) return undefined;
  const text = (value: unknown): value is string => typeof value === "string" && value.length <= MAX_TEXT;
  const optional = (value: unknown) => (text(value) ? value : undefined);
  const out: PickedFile[] = [];
  for (const file of files as Record<string, unknown>[]) {
    if (!file || !text(file.id) || !file.id || !text(file.name)) return undefined;
    out.push({ id: file.id, name: file.name, url: optional(file.url), mimeType: optional(file.mimeType) });
  }
  return out;
}
