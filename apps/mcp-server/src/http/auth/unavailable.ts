/**
 * Access tokens cannot be checked right now (the issuer's key set, or the store holding the
 * grants, is out of reach): the front door answers 503 with `Retry-After`, not 401, so clients
 * keep their tokens and try again.
 */
export class TokensUncheckable extends Error {
  constructor(
    message: string,
    /** When to try again, in seconds. */
    readonly retryAfterSeconds: number,
  ) {
    super(message);
    this.name = "TokensUncheckable";
  }
}
