import { hashKey, type TeamStore } from "../store/index.js";

/** The largest logo kept, in bytes: the most of any answer a guarded fetch reads (see clients.ts). */
export const MAX_LOGO_BYTES = 64 * 1024;
/** How long a logo is kept, in milliseconds (a day); a failed fetch is tried again after 10 minutes. */
const LOGO_TTL_MS = 24 * 3_600_000;
const MISSING_TTL_MS = 10 * 60_000;
/** Raster images only: an SVG can carry script. */
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** Fetches an https URL the way client metadata documents are fetched (SSRF guard, 2.5 s). */
export type GuardedFetch = (url: string, init: RequestInit) => Promise<Response>;

/**
 * A client's logo as a data URI, from a copy kept in the store: the consent page never makes the
 * browser fetch from the client's host (which would tell it who looks, and when). A logo that is
 * not https, not a raster image, over 64 KB or not fetched is left out.
 */
export function logoCache(store: TeamStore, fetchGuarded: GuardedFetch) {
  return async (uri: string | undefined): Promise<string | undefined> => {
    if (!uri?.startsWith("https://")) return undefined;
    const key = `tk:as:logo:${hashKey(uri)}`;
    const kept = await store.get<{ data?: string }>(key);
    if (kept) return kept.data;
    const data = await fetchLogo(uri, fetchGuarded).catch(() => undefined);
    await store.set(key, { data }, data ? LOGO_TTL_MS : MISSING_TTL_MS);
    return data;
  };
}

async function fetchLogo(uri: string, fetchGuarded: GuardedFetch): Promise<string | undefined> {
  const response = await fetchGuarded(uri, { method: "GET", redirect: "manual" });
  const type = response.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase() ?? "";
  if (response.status !== 200 || !IMAGE_TYPES.has(type) || !response.body) {
    await response.body?.cancel();
    return undefined;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.length;
    if (size > MAX_LOGO_BYTES) {
      await response.body.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(chunk);
  }
  return `data:${type};base64,${Buffer.concat(chunks).toString("base64")}`;
}
