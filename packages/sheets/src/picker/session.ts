import { accessTokenVariable, Secret, type StateStore } from "@toolkits/core";
import { GOOGLE } from "../scopes.js";

/** How long a picker link works, in milliseconds. */
export const PICKER_TTL_MS = 10 * 60_000;

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

/** A session as the state store holds it (JSON): the token as its raw value, which the host's store may encrypt. */
interface StoredSession extends Omit<PickerSession, "token"> {
  token: string;
}

/** The state-store key of a session. */
const keyOf = (id: string) => `sheets:picker:${id}`;

// Named as the host names the Google token it hands the tools.
const TOKEN_NAME = accessTokenVariable(GOOGLE);

/**
 * Starts a session bound to `token`, kept in `state` (shared by every replica of the server) for
 * PICKER_TTL_MS; its id is the only secret in the picker URL.
 */
export async function openPickerSession(
  state: StateStore,
  config: PickerConfig,
  token: Secret,
  now = Date.now(),
): Promise<PickerSession> {
  // node:crypto loads with the first picker link, not with the toolkit.
  const { randomBytes } = await import("node:crypto");
  const session: PickerSession = {
    id: randomBytes(24).toString("base64url"),
    config,
    token,
    expiresAt: now + PICKER_TTL_MS,
  };
  await state.set(keyOf(session.id), stored(session), PICKER_TTL_MS);
  return session;
}

/** The live session with this id in `state`; `undefined` when unknown or expired. */
export async function findPickerSession(
  state: StateStore,
  id: string,
  now = Date.now(),
): Promise<PickerSession | undefined> {
  const record = await state.get<StoredSession>(keyOf(id));
  // The store expires entries too; the session's own expiry holds even where its clock is coarser.
  if (!record || typeof record.token !== "string" || !(record.expiresAt > now)) return undefined;
  return { ...record, token: new Secret(TOKEN_NAME, record.token) };
}

/**
 * Records the files the user picked on `session`, in `state`, for the rest of the session's life:
 * from then on it serves no token again (its record drops the token). A session already expired is
 * removed instead.
 */
export async function recordPick(
  state: StateStore,
  session: PickerSession,
  files: PickedFile[],
  now = Date.now(),
): Promise<void> {
  const left = session.expiresAt - now;
  if (left <= 0) {
    await state.delete(keyOf(session.id));
    return;
  }
  await state.set(keyOf(session.id), stored({ ...session, picked: files }), left);
}

function stored({ token, ...session }: PickerSession): StoredSession {
  // A picked session serves no token again, so its record keeps none.
  return { ...session, token: session.picked ? "" : token.reveal() };
}
