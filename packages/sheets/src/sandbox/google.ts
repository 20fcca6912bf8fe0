import { HttpResponse } from "msw";
import { applyFieldMask, type FieldMask, parseFieldMask } from "./fields.js";
import { SANDBOX_TOKEN } from "./state.js";

const STATUS_TEXT: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
};

/** A Google API error response: `{error: {code, message, status}}`. */
export function googleError(code: number, message: string, headers?: Record<string, string>): Response {
  return HttpResponse.json(
    { error: { code, message, status: STATUS_TEXT[code] ?? "UNKNOWN" } },
    { status: code, headers },
  );
}

/** Google's 401 for a missing or unknown token; `undefined` when the request carries the sandbox token. */
export function rejectUnauthorized(request: Request): Response | undefined {
  if (request.headers.get("authorization") === `Bearer ${SANDBOX_TOKEN}`) return undefined;
  return googleError(
    401,
    "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
  );
}

/** A request body parsed as a JSON object; `undefined` when it is not one. */
export async function jsonBody(request: Request): Promise<Record<string, unknown> | undefined> {
  const body = await request.json().catch(() => undefined);
  return body && typeof body === "object" && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : undefined;
}

/** Signals a Google error from deep inside a handler. */
export class GoogleFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Runs a handler, answering a thrown GoogleFailure as Google's error JSON. */
export async function answer(run: () => Promise<Response> | Response): Promise<Response> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof GoogleFailure) return googleError(error.code, error.message);
    throw error;
  }
}

/** The request's `fields` mask, if any. @throws GoogleFailure 400 for a malformed one. */
export function fieldMask(url: URL): FieldMask | undefined {
  const fields = url.searchParams.get("fields");
  try {
    return fields ? parseFieldMask(fields) : undefined;
  } catch (error) {
    throw new GoogleFailure(400, (error as Error).message);
  }
}

/** `resource` as JSON, cut to the request's `fields` mask when it has one. */
export function masked(resource: unknown, url: URL): Response {
  const mask = fieldMask(url);
  return HttpResponse.json((mask ? applyFieldMask(resource, mask) : resource) as object);
}
