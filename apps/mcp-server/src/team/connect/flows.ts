import type { OAuthProviderId } from "../../credentials/providers.js";
import { hashKey, type TeamStore } from "../store/index.js";

/** How long a browser has to come back from an authorization server, in milliseconds (10 minutes). */
export const FLOW_TTL_MS = 10 * 60_000;

/**
 * A signed-in person connecting an upstream account through OAuth. Only a spent connect link
 * starts one, so each person has at most one per provider link.
 */
export interface UpstreamFlow {
  /** Kept for replicas of earlier versions, which also kept sign-ins here, during an upgrade. */
  kind: "upstream";
  provider: OAuthProviderId;
  principal: string;
  verifier: string;
  /** The scopes asked for, for when the token response does not list what was granted. */
  scopes: string[];
  /** The label the connection is saved under, as its link asked; absent: derived from the account. */
  label?: string;
}

/** Flows are found by their OAuth `state`, stored under its hash (`tk:flow:<hash>`). */
const flowKey = (state: string) => `tk:flow:${hashKey(state)}`;

export const saveFlow = (store: TeamStore, state: string, flow: UpstreamFlow): Promise<void> =>
  store.set(flowKey(state), flow, FLOW_TTL_MS);

/** The flow, without ending it (to check who may finish it first). */
export const peekFlow = (store: TeamStore, state: string): Promise<UpstreamFlow | undefined> =>
  store.get<UpstreamFlow>(flowKey(state));

/** Ends the flow: of several concurrent callbacks at most one gets it. */
export const takeFlow = (store: TeamStore, state: string): Promise<UpstreamFlow | undefined> =>
  store.take<UpstreamFlow>(flowKey(state));
