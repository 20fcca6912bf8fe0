import type { errors as OidcErrors, Provider } from "oidc-provider";

/** How long a refused client metadata document is answered from memory, in milliseconds. */
export const DOCUMENT_FAILURE_TTL_MS = 60_000;
/** The most refused documents remembered at once (per process); the oldest is forgotten first. */
const MAX_REMEMBERED = 1_000;

/** Why a client's metadata document (its `client_id` URL) could not be used. */
export type DocumentProblem =
  | "unreachable"
  | "not-https"
  | "private-address"
  | "too-large"
  | "too-slow"
  | "invalid"
  | "status";

/** A refused document: the case, and the sentence a person and an operator are told. */
export interface DocumentRefusal {
  problem: DocumentProblem;
  /** Says the case, for the error page's `error_description` and the log; never the document's content. */
  reason: string;
  /** The OAuth error code answered: `invalid_client`, or `invalid_client_metadata` for a document that is wrong. */
  error: "invalid_client" | "invalid_client_metadata";
}

type Errors = typeof OidcErrors;

const refusals = new WeakMap<object, DocumentRefusal>();

/** The document refusal `error` carries, when it is one (see `rememberDocumentFailures`). */
export const documentRefusalOf = (error: unknown): DocumentRefusal | undefined =>
  typeof error === "object" && error !== null ? refusals.get(error) : undefined;

/**
 * Makes `provider`'s client lookup remember, per `client_id` URL and per process, a metadata document
 * it could not use, for DOCUMENT_FAILURE_TTL_MS: a lookup within that time is refused at once, without
 * fetching. One URL then costs at most one fetch a minute, however often it is asked for, and one
 * authorization request one fetch (the library looks a client up again when answering its error).
 * Each refusal is an `errors` `InvalidClient` (or `InvalidClientMetadata` for a wrong document)
 * whose description says which case it was (see `documentRefusalOf`); an `http:` URL is refused
 * as not https instead of as an unknown client. Other failures (the store out of reach) pass unchanged.
 */
export function rememberDocumentFailures(provider: Provider, errors: Errors, now = Date.now): void {
  const remembered = new Map<string, { refusal: DocumentRefusal; until: number }>();
  const find = provider.Client.find.bind(provider.Client);
  const refuse = (refusal: DocumentRefusal) => {
    const error =
      refusal.error === "invalid_client"
        ? new errors.InvalidClient(refusal.reason)
        : new errors.InvalidClientMetadata(refusal.reason);
    refusals.set(error, refusal);
    return error;
  };
  provider.Client.find = async (id: string) => {
    if (typeof id !== "string" || !/^https?:\/\//i.test(id)) return find(id);
    const known = remembered.get(id);
    if (known && known.until > now()) throw refuse(known.refusal);
    remembered.delete(id);
    let client: Awaited<ReturnType<typeof find>>;
    try {
      client = await find(id);
    } catch (error) {
      const refusal = classify(error);
      if (!refusal) throw error;
      if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value ?? "");
      remembered.set(id, { refusal, until: now() + DOCUMENT_FAILURE_TTL_MS });
      throw refuse(refusal);
    }
    // The library takes only https URLs as documents; an http one would read as an unknown client.
    if (!client && /^http:/i.test(id)) throw refuse(NOT_HTTPS);
    return client;
  };
}

const NOT_HTTPS: DocumentRefusal = {
  problem: "not-https",
  reason: "the client_id is an http URL, not https: a client metadata document is fetched over https only",
  error: "invalid_client",
};

/** The errors behind `error` (its `cause`s), outermost first. */
function causes(error: unknown): unknown[] {
  const found: unknown[] = [];
  let each = (error as { cause?: unknown }).cause;
  for (; each != null && found.length < 8; each = (each as { cause?: unknown }).cause) found.push(each);
  return found;
}

const DOCUMENT = "the client's metadata document";
/** The library's errors of a client lookup that mean its document was refused. */
const REFUSED = new Set(["invalid_client", "invalid_client_metadata", "invalid_redirect_uri"]);

/**
 * Which case a failed lookup of a metadata document was, from the library's error, its detail and
 * its causes (the fetch's own error, the body check's); undefined for an error that is not a
 * refused document (the store out of reach, a client refused by policy).
 */
function classify(error: unknown): DocumentRefusal | undefined {
  const top = error as { error?: string; error_description?: string; error_detail?: string };
  if (!REFUSED.has(top?.error ?? "")) return undefined;
  if (top.error !== "invalid_client") return invalid(top.error_description ?? String(top.error));
  const behind = causes(error);
  const named = (pattern: RegExp) =>
    behind.some((each) => pattern.test(String((each as { name?: unknown }).name)));
  const said = (pattern: RegExp) =>
    behind.some((each) => each instanceof Error && pattern.test(each.message));
  if (named(/^(TimeoutError|AbortError)$/))
    return problem("too-slow", `${DOCUMENT} did not arrive within 2.5 s (too slow)`);
  if (said(/special-use IP address/))
    return problem(
      "private-address",
      `${DOCUMENT} is on a private (special-use) address, which this server does not fetch from`,
    );
  if (said(/^response too large$/))
    return problem("too-large", `${DOCUMENT} is larger than 5 KB (too large)`);
  // The library names the status in the error's detail only.
  const status = /^unexpected response status (\d{3})$/.exec(top.error_detail ?? "")?.[1];
  if (status)
    return problem(
      "status",
      `${DOCUMENT} was answered with the unexpected HTTP status ${status} (only 200 is taken, without redirects)`,
    );
  if (behind.some((each) => each instanceof SyntaxError)) return invalid("it is not JSON");
  if (!behind.length) return undefined;
  const code = behind
    .map((each) => (each as { code?: unknown }).code)
    .find((each) => typeof each === "string");
  return problem(
    "unreachable",
    `${DOCUMENT} could not be fetched: its host is unreachable${code ? ` (${code})` : ""}`,
  );
}

const problem = (kind: Exclude<DocumentProblem, "invalid">, reason: string): DocumentRefusal => ({
  problem: kind,
  reason,
  error: "invalid_client",
});

const invalid = (why: string): DocumentRefusal => ({
  problem: "invalid",
  reason: `${DOCUMENT} is invalid: ${why}`,
  error: "invalid_client_metadata",
});
