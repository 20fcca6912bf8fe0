import { isIsoTime, isTimeZone } from "../params.js";
import type { PdError } from "../types.js";

const DEFAULT_LIMIT = 25;
const MAX_LIMIT = 100;
const MAX_OFFSET_PLUS_LIMIT = 10_000;

/** An upstream failure with PagerDuty's error body. */
export class PdFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: PdError,
  ) {
    super(body.error.message);
  }
}

/** Reads a request's query the way PagerDuty does, answering 400 with its error body when invalid. */
export class Query {
  readonly #params: URLSearchParams;

  constructor(url: URL) {
    this.#params = url.searchParams;
  }

  /** A 400 in PagerDuty's shape. */
  invalid(problem: string): PdFailure {
    return new PdFailure(400, {
      error: { message: "Invalid Input Provided", code: 2001, errors: [problem] },
    });
  }

  text(name: string): string | undefined {
    return this.#params.get(name) ?? undefined;
  }

  /** The values of the array parameter `name[]`. */
  list(name: string): string[] {
    return this.#params.getAll(`${name}[]`);
  }

  /** `name[]` values, each checked against `allowed`. */
  enums<T extends string>(name: string, allowed: readonly T[]): T[] {
    const values = this.list(name);
    const bad = values.filter((value) => !allowed.includes(value as T));
    if (bad.length)
      throw this.invalid(`${name} must be a list of: ${allowed.join(", ")}; got ${bad.join(", ")}.`);
    return values as T[];
  }

  bool(name: string): boolean | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    if (value !== "true" && value !== "false") throw this.invalid(`${name} must be true or false.`);
    return value === "true";
  }

  int(name: string): number | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    if (!/^\d+$/.test(value)) throw this.invalid(`${name} must be a non-negative integer.`);
    return Number(value);
  }

  /** An ISO-8601 time as epoch milliseconds. */
  time(name: "since" | "until"): number | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    if (!isIsoTime(value)) {
      throw new PdFailure(400, {
        error: {
          message: "Invalid Input Provided",
          code: name === "since" ? 2004 : 2005,
          errors: [`${name} is not a valid date.`],
        },
      });
    }
    return Date.parse(value);
  }

  zone(): string | undefined {
    const zone = this.text("time_zone");
    if (zone !== undefined && !isTimeZone(zone))
      throw this.invalid("time_zone must be a valid IANA time zone.");
    return zone;
  }

  /** A test of whether a name contains the `query` parameter, case-insensitively (all pass without one). */
  nameFilter(): (name: string) => boolean {
    const query = this.text("query")?.toLowerCase();
    return (name) => !query || name.toLowerCase().includes(query);
  }

  /** An ISO time rendered in `zone` with its offset, as PagerDuty renders `time_zone`. */
  render(time: string | null | undefined, zone: string | undefined): string | null | undefined {
    if (!time || !zone) return time;
    const ms = Date.parse(time);
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat("en-US", {
        timeZone: zone,
        hourCycle: "h23",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
        timeZoneName: "longOffset",
      })
        .formatToParts(ms)
        .map((part) => [part.type, part.value]),
    );
    const offset = parts.timeZoneName === "GMT" ? "Z" : String(parts.timeZoneName).replace("GMT", "");
    return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
  }

  /**
   * One page of `items` in PagerDuty's list envelope, honouring limit, offset, total and the 10,000
   * ceiling; `expand` applies to the page's items only.
   */
  page<T>(
    key: string,
    items: readonly T[],
    expand: (item: T) => unknown = (item) => item,
  ): Record<string, unknown> {
    const limit = Math.min(Math.max(this.int("limit") ?? DEFAULT_LIMIT, 1), MAX_LIMIT);
    const offset = this.int("offset") ?? 0;
    if (offset + limit > MAX_OFFSET_PLUS_LIMIT) {
      throw this.invalid(`Offset+limit exceeds maximum allowed value of ${MAX_OFFSET_PLUS_LIMIT}.`);
    }
    return {
      [key]: items.slice(offset, offset + limit).map(expand),
      limit,
      offset,
      more: offset + limit < items.length,
      total: this.bool("total") ? items.length : null,
    };
  }
}
