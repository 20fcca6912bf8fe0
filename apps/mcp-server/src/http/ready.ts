import type { Logger } from "@toolkits/core";
import type { TokenVerifier } from "./auth/verify.js";

/** What readiness depends on: the team's store (per-user mode), and the JWKS where JWTs are accepted. */
export interface Dependencies {
  /** Settles within a few seconds; rejects saying why the store does not answer. */
  store?: () => Promise<void>;
  verifier?: TokenVerifier;
}

/**
 * `/readyz`: whether this replica can serve calls now, for load balancers and Kubernetes (liveness
 * is `/healthz`). Names each dependency's state, never why it failed (a Redis error names its
 * host), which goes to the log.
 */
export async function readiness(
  dependencies: Dependencies,
  logger: Logger,
): Promise<{ ready: boolean; store?: string; jwks?: string }> {
  const [store, jwks] = await Promise.all([
    dependencies.store?.().then(
      () => "ok",
      (error: unknown) => {
        logger.warn("not ready: the store does not answer", { error: (error as Error).message });
        return "unavailable";
      },
    ),
    dependencies.verifier?.ready().then((ok) => {
      if (!ok) logger.warn("not ready: the JWKS cannot be fetched");
      return ok ? "ok" : "unavailable";
    }),
  ]);
  return { ready: store !== "unavailable" && jwks !== "unavailable", store, jwks };
}
