import { type AuthRequirement, lazy, ToolError } from "@toolkits/core";
import { z } from "zod";
import { API_TOKEN_SECRET, MAX_OFFSET_PLUS_LIMIT } from "./client.js";

/** Scopes of PagerDuty's scoped OAuth, by what they read. */
export const SCOPES = {
  incidents: "incidents.read",
  oncalls: "oncalls.read",
  schedules: "schedules.read",
  services: "services.read",
  policies: "escalation_policies.read",
  users: "users.read",
  teams: "teams.read",
} as const;

/**
 * The credential a pager tool declares, once: a PagerDuty OAuth token granting `scopes`, or else a
 * classic API token (`PAGER_API_TOKEN`).
 */
export function pagerAuth(...scopes: string[]): AuthRequirement {
  return { oauth: { provider: "pager", scopes }, secret: API_TOKEN_SECRET };
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/i;

/** True for an ISO-8601 date or date-time that names a real instant. */
export function isIsoTime(value: string): boolean {
  return ISO_TIME.test(value) && !Number.isNaN(Date.parse(value));
}

/** True for an IANA time zone name the runtime knows (`Europe/Berlin`, `UTC`). */
export function isTimeZone(value: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(value)) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

const isoTime = (what: string) =>
  z
    .string()
    .refine(isIsoTime, "must be an ISO-8601 time such as 2024-05-01T09:00:00Z")
    .optional()
    .describe(what);

export const sinceParam = (what = "Window start, ISO-8601") => isoTime(what);
export const untilParam = (what = "Window end, ISO-8601") => isoTime(what);

export const limitParam = lazy(() => z.number().int().min(1).max(50).default(10).describe("Page size"));
export const offsetParam = lazy(() =>
  z
    .number()
    .int()
    .min(0)
    .max(MAX_OFFSET_PLUS_LIMIT - 1)
    .optional()
    .describe("Records to skip: a previous page's next_offset"),
);
export const timeZoneParam = lazy(() =>
  z
    .string()
    .refine(isTimeZone, "must be an IANA time zone such as Europe/Berlin")
    .optional()
    .describe("IANA time zone for returned times"),
);
export const idsParam = (what: string) => z.array(z.string().min(1)).optional().describe(what);

/**
 * The page to ask for.
 * @throws ToolError `invalid_input` past PagerDuty's offset + limit ceiling, before anything is sent.
 */
export function pageParams(input: { limit: number; offset?: number | undefined }): {
  limit: number;
  offset: number;
} {
  const offset = input.offset ?? 0;
  if (offset + input.limit > MAX_OFFSET_PLUS_LIMIT) {
    throw new ToolError(
      "invalid_input",
      `offset + limit is ${offset + input.limit}; PagerDuty serves at most the first ${MAX_OFFSET_PLUS_LIMIT} records of a list. Narrow the request with filters (e.g. since/until) instead.`,
    );
  }
  return { limit: input.limit, offset };
}

const DAY_MS = 86_400_000;
/** PagerDuty's longest incident window, in days (6 months). */
export const INCIDENT_WINDOW_DAYS = 183;

/**
 * @throws ToolError `invalid_input` when `until` is not after `since`, or the window is longer
 * than `maxDays`, before anything is sent.
 */
export function checkWindow(since: string | undefined, until: string | undefined, maxDays?: number): void {
  if (!since || !until) return;
  const span = Date.parse(until) - Date.parse(since);
  if (span <= 0) {
    throw new ToolError("invalid_input", `until (${until}) must be later than since (${since}).`);
  }
  if (maxDays !== undefined && span > maxDays * DAY_MS) {
    throw new ToolError(
      "invalid_input",
      `since to until spans ${Math.ceil(span / DAY_MS)} days; PagerDuty allows at most ${maxDays}. Narrow the window.`,
    );
  }
}
