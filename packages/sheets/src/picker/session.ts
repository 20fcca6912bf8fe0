import { randomBytes } from "node:crypto";
import type { Secret } from "@toolkits/core";

/** How long a picker link works, in milliseconds. */
export const PICKER_TTL_MS = 10 * 60_000;
/** Oldest sessions are dropped past this many, so abandoned links cannot pile up. */
const MAX_SESSIONS = 100;

/** What the picker page needs from configuration. */
export interface PickerConfig {
  /** Browser API key allowed to load the Picker API. */
  apiKey: string;
  /** Cloud project number; picked files become reachable by this app under drive.file. */
  appId: string;
}

/** A file the user picked, as the page reports it. */
export interface PickedFile {
  id: string;
  name: string;
  url?: string;
  mimeType?: string;
}

/** One picker link: random id, configuration, the caller's token, expiry (epoch milliseconds). */
export interface PickerSession {
  id: string;
  config: PickerConfig;
  token: Secret;
  expiresAt: number;
  /** Set once the page reported a pick; the session then serves no token again. */
  picked?: PickedFile[];
}

// In memory: a link only has to outlive the few minutes the user takes to pick.
const sessions = new Map<string, PickerSession>();

/** Starts a session bound to `token`; its id is the only secret in the picker URL. */
export function openPickerSession(config: PickerConfig, token: Secret, now = Date.now()): PickerSession {
  sweep(now);
  // Maps iterate in insertion order, so the first key is the oldest.
  const oldest = sessions.keys().next();
  if (sessions.size >= MAX_SESSIONS && !oldest.done) sessions.delete(oldest.value);
  const session = {
    id: randomBytes(24).toString("base64url"),
    config,
    token,
    expiresAt: now + PICKER_TTL_MS,
  };
  sessions.set(session.id, session);
  return session;
}

/** The live session with this id; `undefined` when unknown or expired. */
export function findPickerSession(id: string, now = Date.now()): PickerSession | undefined {
  sweep(now);
  return sessions.get(id);
}

function sweep(now: number): void {
  for (const [id, session] of sessions) if (session.expiresAt <= now) sessions.delete(id);
}
