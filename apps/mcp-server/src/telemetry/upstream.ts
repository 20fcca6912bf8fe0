import type { Attributes } from "@opentelemetry/api";
import type { UpstreamFetch, UpstreamInit } from "@toolkits/core";
import { type ClientInstruments, errorTypeOf, startClient } from "./client.js";
import * as names from "./conventions.js";

/**
 * `fetch` recording each upstream request by the HTTP client conventions: a CLIENT span named
 * `{method} {url.template}` (within a traced call only) and `http.client.request.duration`, with
 * the method, the upstream's address and port, the URL's template (never the URL itself: its path
 * and query hold ids), the status, `error.type` (the status from 400 on, or why no answer came)
 * and the resend count. Core's clients say what each request is (`UpstreamInit.about`); an API
 * method id stands where there is no template (Google's client libraries). The time is the
 * request's until its answer's headers arrive.
 */
export function recordedFetch(fetch: UpstreamFetch, instruments: ClientInstruments): UpstreamFetch {
  return async (input, init) => {
    const { span, metric } = requestAttributes(input, init);
    const finish = startClient(instruments, spanName(span), span, metric);
    try {
      const response = await fetch(input, init);
      finish(statusAttributes(response.status), response.status >= 400);
      return response;
    } catch (error) {
      finish({ [names.ERROR_TYPE]: errorTypeOf(error) }, true);
      throw error;
    }
  };
}

/** The attributes of each kind of request (method, upstream, template), made once: they are few. */
const requestCache = new Map<string, Attributes>();

function requestAttributes(
  input: string | URL | Request,
  init: UpstreamInit | undefined,
): { span: Attributes; metric: Attributes } {
  const request = input instanceof Request ? input : undefined;
  const url = request?.url ?? String(input);
  const method = (init?.method ?? request?.method ?? "GET").toUpperCase();
  const about = init?.about;
  // The origin, without parsing the whole URL: everything before its path.
  const pathAt = url.indexOf("/", url.indexOf("//") + 2);
  const origin = pathAt < 0 ? url : url.slice(0, pathAt);
  const key = `${method} ${origin} ${about?.template ?? ""} ${about?.target ?? ""}`;
  let metric = requestCache.get(key);
  if (!metric) {
    const parsed = URL.parse(origin);
    metric = Object.freeze({
      [names.HTTP_REQUEST_METHOD]: names.HTTP_METHODS.has(method) ? method : names.OTHER,
      ...(parsed && {
        [names.SERVER_ADDRESS]: parsed.hostname,
        [names.SERVER_PORT]: parsed.port ? Number(parsed.port) : parsed.protocol === "https:" ? 443 : 80,
      }),
      ...(about?.template !== undefined && { [names.URL_TEMPLATE]: about.template }),
      ...(about && about.template === undefined && { [names.UPSTREAM_OPERATION]: about.target }),
    });
    requestCache.set(key, metric);
  }
  // A resend is the span's own fact; a count is no dimension of the metric.
  const span = about?.resendCount
    ? { ...metric, [names.HTTP_REQUEST_RESEND_COUNT]: about.resendCount }
    : metric;
  return { span, metric };
}

/** What an answer's status adds, made once per status. */
const statusCache = new Map<number, Attributes>();

function statusAttributes(status: number): Attributes {
  let attributes = statusCache.get(status);
  if (!attributes) {
    attributes = Object.freeze({
      [names.HTTP_RESPONSE_STATUS_CODE]: status,
      ...(status >= 400 && { [names.ERROR_TYPE]: String(status) }),
    });
    statusCache.set(status, attributes);
  }
  return attributes;
}

/** `{method} {url.template}`, or the API method id's place taken by it, else the method alone. */
function spanName(attributes: Attributes): string {
  const method = String(attributes[names.HTTP_REQUEST_METHOD]);
  const target = attributes[names.URL_TEMPLATE] ?? attributes[names.UPSTREAM_OPERATION];
  return target === undefined ? method : `${method} ${String(target)}`;
}
