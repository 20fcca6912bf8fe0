import { HttpResponse, http } from "msw";
import { ORDER_KEYS } from "../drive.js";
import { applyFieldMask, parseFieldMask } from "./fields.js";
import { answer, fieldMask, GoogleFailure, masked, rejectUnauthorized } from "./google.js";
import type { FakeFile, FakeGoogle } from "./state.js";

export const WWW_ROOT = "https://www.googleapis.com";

/** msw handlers for Drive v3 `files.list` and `about.get`, and OAuth2 v2 `userinfo`, over `state`. */
export function driveHandlers(state: FakeGoogle) {
  return [
    http.get(`${WWW_ROOT}/drive/v3/files`, ({ request }) =>
      answer(() => rejectUnauthorized(request) ?? listFiles(state, new URL(request.url))),
    ),
    http.get(`${WWW_ROOT}/drive/v3/about`, ({ request }) =>
      answer(() => rejectUnauthorized(request) ?? about(request)),
    ),
    http.get(
      `${WWW_ROOT}/oauth2/v2/userinfo`,
      ({ request }) => rejectUnauthorized(request) ?? HttpResponse.json(USER),
    ),
  ];
}

const USER = {
  id: "108234567890123456789",
  email: "ada@example.com",
  verified_email: true,
  name: "Ada Lovelace",
  given_name: "Ada",
  family_name: "Lovelace",
  picture: "https://lh3.googleusercontent.com/a/sandbox-ada",
  locale: "en",
  hd: "example.com",
};

function about(request: Request): Response {
  const url = new URL(request.url);
  if (!url.searchParams.get("fields")) {
    throw new GoogleFailure(400, "The 'fields' parameter is required for this method.");
  }
  return masked(
    {
      kind: "drive#about",
      user: {
        kind: "drive#user",
        displayName: USER.name,
        emailAddress: USER.email,
        photoLink: USER.picture,
        me: true,
      },
      storageQuota: {
        limit: "16106127360",
        usage: "524288000",
        usageInDrive: "314572800",
        usageInDriveTrash: "0",
      },
      canCreateDrives: true,
    },
    url,
  );
}

const DEFAULT_FIELDS = "kind,nextPageToken,incompleteSearch,files(kind,id,name,mimeType)";
const SORT_KEYS: ReadonlySet<string> = new Set(ORDER_KEYS);

// files.list: corpora, query, order and paging as Drive applies them to the seeded files.
function listFiles(state: FakeGoogle, url: URL): Response {
  const params = url.searchParams;
  const visible = corpus(state, params).filter(matcher(params.get("q") ?? ""));
  const sorted = visible.sort(comparator(params.get("orderBy") ?? "folder,modifiedTime desc,name"));
  const pageSize = Number(params.get("pageSize") ?? 100);
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000) invalid("pageSize");
  // The token is tied to the query it came from, as Drive's are.
  const fingerprint = ["q", "orderBy", "corpora", "driveId", "includeItemsFromAllDrives"]
    .map((name) => params.get(name) ?? "")
    .join("|");
  const token = params.get("pageToken");
  const offset = token ? readToken(token, fingerprint) : 0;
  const page = sorted.slice(offset, offset + pageSize);
  const next = offset + page.length < sorted.length ? offset + page.length : undefined;
  const body = {
    kind: "drive#fileList",
    nextPageToken:
      next === undefined
        ? undefined
        : Buffer.from(JSON.stringify({ o: next, k: fingerprint })).toString("base64url"),
    incompleteSearch: false,
    files: page.map((file) => ({
      kind: "drive#file",
      id: file.id,
      name: file.name,
      mimeType: file.mimeType,
      createdTime: file.createdTime,
      modifiedTime: file.modifiedTime,
      trashed: file.trashed,
      driveId: file.driveId,
      webViewLink: `https://docs.google.com/spreadsheets/d/${file.id}/edit?usp=drivesdk`,
    })),
  };
  return HttpResponse.json(applyFieldMask(body, fieldMask(url) ?? parseFieldMask(DEFAULT_FIELDS)) as object);
}

function invalid(location: string): never {
  throw new GoogleFailure(400, `Invalid Value (${location})`);
}

function readToken(token: string, fingerprint: string): number {
  try {
    const { o, k } = JSON.parse(Buffer.from(token, "base64url").toString());
    if (k === fingerprint && Number.isInteger(o)) return o;
  } catch {
    // falls through to Drive's answer for a bad token
  }
  return invalid("pageToken");
}

/** The files the request's corpora reach; this app only ever sees files granted to it (drive.file). */
function corpus(state: FakeGoogle, params: URLSearchParams): FakeFile[] {
  const corpora = params.get("corpora") ?? "user";
  const driveId = params.get("driveId");
  const allDrives = params.get("includeItemsFromAllDrives") === "true";
  if (allDrives && params.get("supportsAllDrives") !== "true") {
    throw new GoogleFailure(
      400,
      "The includeItemsFromAllDrives parameter can only be set when supportsAllDrives is true.",
    );
  }
  if ((corpora === "drive") !== (driveId !== null)) {
    throw new GoogleFailure(
      400,
      "The driveId parameter must be specified if and only if corpora is set to drive.",
    );
  }
  if (corpora === "drive" && !allDrives) {
    throw new GoogleFailure(
      400,
      "The includeItemsFromAllDrives parameter must be set to true when corpora is drive.",
    );
  }
  if (driveId !== null && !state.sharedDrives.has(driveId))
    throw new GoogleFailure(404, `Shared drive not found: ${driveId}`);
  const inScope = (file: FakeFile): boolean => {
    if (file.driveId && !allDrives) return false;
    if (corpora === "user") return file.owner === "me" || Boolean(file.driveId);
    if (corpora === "domain") return file.domainShared;
    if (corpora === "drive") return file.driveId === driveId;
    if (corpora === "allDrives") return true;
    return invalid("corpora");
  };
  return state.files.filter((file) => file.granted && inScope(file));
}

type Token = { kind: "word" | "string" | "op" | "paren"; text: string };

function tokens(q: string): Token[] {
  const out: Token[] = [];
  const pattern = /\s*(?:'((?:[^'\\]|\\.)*)'|([A-Za-z_]+)|(!=|<=|>=|=|<|>)|([()]))/y;
  const end = q.trimEnd().length;
  for (let at = 0; at < end; at = pattern.lastIndex) {
    pattern.lastIndex = at;
    const match = pattern.exec(q);
    if (!match) return invalid("q");
    if (match[1] !== undefined) out.push({ kind: "string", text: match[1].replace(/\\(.)/g, "$1") });
    else if (match[2] !== undefined) out.push({ kind: "word", text: match[2] });
    else if (match[3] !== undefined) out.push({ kind: "op", text: match[3] });
    else out.push({ kind: "paren", text: match[4] ?? "" });
  }
  return out;
}

/**
 * A predicate for the `q` forms the tools send: clauses joined by `and`, each `[not] name contains '…'`,
 * `name = '…'`, `mimeType = '…'` / `!=`, or `trashed = true|false`. Other syntax is answered 400.
 * `name contains` matches at the start of a word, case-insensitively, as Drive does.
 */
function matcher(q: string): (file: FakeFile) => boolean {
  const list = tokens(q);
  const clauses: ((file: FakeFile) => boolean)[] = [];
  let at = 0;
  while (at < list.length) {
    const negate = list[at]?.text === "not";
    if (negate) at++;
    const [field, op, value] = [list[at], list[at + 1], list[at + 2]];
    at += 3;
    if (!field || !op || !value) return invalid("q");
    const test = clause(field.text, op.text, value);
    clauses.push(negate ? (file) => !test(file) : test);
    if (at < list.length) {
      if (list[at]?.text !== "and") return invalid("q");
      at++;
    }
  }
  return (file) => clauses.every((test) => test(file));
}

function clause(field: string, op: string, value: Token): (file: FakeFile) => boolean {
  const text = value.text;
  if (field === "name" && op === "contains" && value.kind === "string") {
    const wanted = text.toLowerCase();
    return (file) => wordPrefix(file.name.toLowerCase(), wanted);
  }
  if (field === "name" && op === "=" && value.kind === "string") return (file) => file.name === text;
  if (field === "mimeType" && (op === "=" || op === "!=") && value.kind === "string") {
    return (file) => (file.mimeType === text) === (op === "=");
  }
  if (field === "trashed" && op === "=" && (text === "true" || text === "false")) {
    return (file) => file.trashed === (text === "true");
  }
  return invalid("q");
}

function wordPrefix(name: string, wanted: string): boolean {
  for (let at = name.indexOf(wanted); at >= 0; at = name.indexOf(wanted, at + 1)) {
    if (at === 0 || !/[\p{L}\p{N}]/u.test(name[at - 1] ?? "")) return true;
  }
  return false;
}

/** Drive's `orderBy`: comma-separated keys, each optionally ` desc`; ties broken by id. */
function comparator(orderBy: string): (a: FakeFile, b: FakeFile) => number {
  const keys = orderBy.split(",").map((part) => {
    const [key = "", direction, extra] = part.trim().split(/\s+/);
    if (!SORT_KEYS.has(key) || extra !== undefined || (direction !== undefined && direction !== "desc")) {
      invalid("orderBy");
    }
    return { key, sign: direction === "desc" ? -1 : 1 };
  });
  return (a, b) => {
    for (const { key, sign } of keys) {
      const order = compareBy(key, a, b);
      if (order) return sign * order;
    }
    return a.id.localeCompare(b.id);
  };
}

function compareBy(key: string, a: FakeFile, b: FakeFile): number {
  if (key === "name") return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  if (key === "name_natural")
    return a.name.localeCompare(b.name, "en", { numeric: true, sensitivity: "base" });
  if (key === "createdTime") return a.createdTime.localeCompare(b.createdTime);
  if (["modifiedTime", "modifiedByMeTime", "viewedByMeTime", "recency"].includes(key)) {
    return a.modifiedTime.localeCompare(b.modifiedTime);
  }
  // folder, quotaBytesUsed, sharedWithMeTime and starred are equal for every seeded file.
  return 0;
}
