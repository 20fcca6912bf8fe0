import type { Logger } from "@toolkits/core";
import { createRemoteJWKSet, type JWTVerifyGetKey, errors as joseErrors } from "jose";
import { TokensUncheckable } from "./unavailable.js";

/**
 * The answer when a token could not be checked at all, because the issuer's key set (JWKS) is
 * out of reach: the caller should retry after `retryAfterSeconds`, not sign in again.
 */
export class KeySetUnavailable extends TokensUncheckable {
  constructor(retryAfterSeconds: number) {
    super(
      "Access tokens cannot be checked now: the authorization server's key set (JWKS) is unreachable.",
      retryAfterSeconds,
    );
  }
}

/** Longest a JWKS fetch may take before the key set counts as unreachable, in milliseconds. */
const JWKS_TIMEOUT_MS = 3_000;
/** How long after a failed JWKS fetch tokens are refused at once instead of fetching again, in milliseconds. */
const JWKS_RETRY_MS = 5_000;
/**
 * What jose throws when the key set itself could not be had: its generic error (a status other
 * than 200, a body that is not JSON), a timeout, a malformed set. Network failures are not jose's.
 */
const KEY_SET_FAILURES = new Set(["ERR_JOSE_GENERIC", "ERR_JWKS_TIMEOUT", "ERR_JWKS_INVALID"]);

/**
 * jose's remote key set, with a fetch bounded by `JWKS_TIMEOUT_MS`. When the set cannot be
 * fetched, tokens that need it get KeySetUnavailable rather than a refusal, and while no fresh
 * set is cached, later ones get it at once until `JWKS_RETRY_MS` has passed, rather than each
 * waiting for another fetch to time out. One error is logged per outage.
 */
export function remoteKeySet(url: URL, logger: Logger): JWTVerifyGetKey & { ready(): Promise<boolean> } {
  const remote = createRemoteJWKSet(url, { timeoutDuration: JWKS_TIMEOUT_MS });
  let retryAt = 0;
  let down = false;
  const unavailable = () => new KeySetUnavailable(Math.max(1, Math.ceil((retryAt - Date.now()) / 1000)));
  const getKey: JWTVerifyGetKey = async (header, token) => {
    if (!remote.fresh && Date.now() < retryAt) throw unavailable();
    try {
      const key = await remote(header, token);
      if (down) logger.info("JWKS reachable again", { url: url.href });
      down = false;
      return key;
    } catch (error) {
      if (error instanceof joseErrors.JOSEError && !KEY_SET_FAILURES.has(error.code)) throw error;
      retryAt = Date.now() + JWKS_RETRY_MS;
      if (!down) {
        logger.error("JWKS unreachable: OAuth access tokens are answered 503 until it is back", {
          url: url.href,
          error: error instanceof Error ? error.message : String(error),
        });
      }
      down = true;
      throw unavailable();
    }
  };
  const ready = () =>
    remote.fresh
      ? Promise.resolve(true)
      : remote.reload().then(
          () => true,
          () => false,
        );
  return Object.assign(getKey, { ready });
}
