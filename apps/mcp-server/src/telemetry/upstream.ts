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
    const attributes = requestAttributes(input, init);
    const finish = startClient(instruments, spanName(attributes), attributes, metricAttributes(attributes));
    try {
      const response = await fetch(input, init);
      const failed = response.status >= 400;
      const status = response.status;
      finish(
        {
          [names.HTTP_RESPONSE_STATUS_CODE]: status,
          ...(failed && { [names.ERROR_TYPE]: String(status) }),
        },
        failed,
      );
      return response;
    } catch (error) {
      finish({ [names.ERROR_TYPE]: errorTypeOf(error) }, true);
      throw error;
    }
  };
}

function requestAttributes(input: string | URL | Request, init: UpstreamInit | undefined): Attributes {
  const request = input instanceof Request ? input : undefined;
  const url = URL.parse(request?.url ?? String(input));
  const method = (init?.method ?? request?.method ?? "GET").toUpperCase();
  const about = init?.about;
  return {
    [names.HTTP_REQUEST_METHOD]: names.HTTP_METHODS.has(method) ? method : names.OTHER,
    ...(url && {
      [names.SERVER_ADDRESS]: url.hostname,
      [names.SERVER_PORT]: url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80,
    }),
    ...(about?.template !== undefined && { [names.URL_TEMPLATE]: about.template }),
    ...(about && about.template === undefined && { [names.UPSTREAM_OPERATION]: about.target }),
    ...(about?.resendCount && { [names.HTTP_REQUEST_RESEND_COUNT]: about.resendCount }),
  };
}

/** `{method} {url.template}`, or the API method id's place taken by it, else the method alone. */
function spanName(attributes: Attributes): string {
  const method = String(attributes[names.HTTP_REQUEST_METHOD]);
  const target = attributes[names.URL_TEMPLATE] ?? attributes[names.UPSTREAM_OPERATION];
  return target === undefined ? method : `${method} ${String(target)}`;
}

/** The metric's attributes: the span's, less the resend count (a count is no dimension). */
function metricAttributes(attributes: Attributes): Attributes {
  const { [names.HTTP_REQUEST_RESEND_COUNT]: _resends, ...rest } = attributes;
  return rest;
}
