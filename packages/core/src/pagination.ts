import { z } from "zod";

/** Paging fields of a limit/offset list result. */
export interface OffsetPage {
  limit: number;
  offset: number;
  /** True when more records exist past this page. */
  more: boolean;
  /** The `offset` to pass to get the next page; present only when `more` is true. */
  next_offset?: number;
}

/**
 * Paging fields for a page of `count` records fetched at `offset`. The next offset counts the
 * records actually returned, so a short page never skips anything.
 */
export function offsetPage(page: {
  limit: number;
  offset: number;
  more: boolean;
  count: number;
}): OffsetPage {
  const { limit, offset, more, count } = page;
  return more ? { limit, offset, more, next_offset: offset + count } : { limit, offset, more };
}

/** zod shape of OffsetPage, to spread into list output schemas. */
export const offsetPageShape = {
  limit: z.number().int(),
  offset: z.number().int(),
  more: z.boolean().describe("True when more records exist past this page"),
  next_offset: z.number().int().optional().describe("Pass as offset to get the next page"),
};

/** Paging fields of an opaque-token list result. */
export interface TokenPage {
  more: boolean;
  /** The token to pass back to get the next page; present only when `more` is true. */
  next_page_token?: string;
}

/** Paging fields from an upstream's next-page token (empty or missing means the last page). */
export function tokenPage(next: string | null | undefined): TokenPage {
  return next ? { more: true, next_page_token: next } : { more: false };
}

/** zod shape of TokenPage, to spread into list output schemas. */
export const tokenPageShape = {
  more: z.boolean().describe("True when more records exist past this page"),
  next_page_token: z.string().optional().describe("Pass back as the page token to get the next page"),
};
