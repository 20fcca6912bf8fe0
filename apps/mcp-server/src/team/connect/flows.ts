import type { OAuthProviderId } from "../../credentials/providers.js";
import { hashKey, type TeamStore } from "../store/index.js";

/** How long a browser has to come back from an authorization server, in milliseconds (10 minutes). */
export const FLOW_TTL_MS = 10 * 60_000;

/** A browser signing in to this server at its OpenID Connect issuer. */
export interface SignInFlow {
  kind: "sign-in";
  /** The key of the (not yet signed-in) session that started it: only that browser may finish it. */
  session: string;
  verifier: string;
  nonce: string;
  /** Where to go once signed in (a path under /connect). */
  returnTo: string;
}

/** A person connecting an upstream account through OAuth. */
export interface UpstreamFlow {
  kind: "upstream";
  provider: OAuthProviderId;
  principal: string;
  verifier: string;
  /** The scopes asked for, for when the token response does not list what was granted. */
  scopes: string[];
}

export type Flow = SignInFlow | UpstreamFlow;

/** Flows are found by their OAuth `state`, stored under its hash (`tk:flow:<hash>`). */
const flowKey = (state: string) => `tk:flow:${hashKey(state)}`;

export const saveFlow = (store: TeamStore, state: string, flow: Flow): Promise<void> =>
  store.set(flowKey(state), flow, FLOW_TTL_MS);

/** The flow, without ending it (to check who may finish it first). */
export const peekFlow = (store: TeamStore, state: string): Promise<Flow | undefined> =>
  store.get<Flow>(flowKey(state));

/** Ends the flow: of several concurrent callbacks at most one gets it. */
export const takeFlow = (store: TeamStore, state: string): Promise<Flow | undefined> =>
  store.take<Flow>(flowKey(state));
