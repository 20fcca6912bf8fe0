import {
  type Attributes,
  context,
  type Histogram,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { UpstreamFetch, UpstreamInit } from "@toolkits/core";
import * as names from "./conventions.js";

/** What upstream requests record into. */
export interface UpstreamInstruments {
  /** Undefined when traces are off. */
  tracer?: Tracer;
  duration: Histogram;
}

/**
 * `fetch` recording each upstream request by the HTTP client conventions: a CLIENT span named
 * `{method} {url.template}` (within a traced call only) and `http.client.request.duration`, with
 * the method, the upstream's address and port, the URL's template (never the URL itself: its path
 * and query hold ids), the status, `error.type` (the status from 400 on, or why no answer came)
 * and the resend count. Core's clients say what each request is (`UpstreamInit.about`); an API
 * method id stands where there is no template (Google's client libraries). The time is the
 * request's until its answer's headers arrive.
 */
export function recordedFetch(fetch: UpstreamFetch, instruments: UpstreamInstruments): UpstreamFetch {
  return async (input, init) => {
    const started = performance.now();
    const attributes = requestAttributes(input, init);
    const parent = context.active();
    // Only a request made for a traced operation gets a span: nothing else would give it a trace.
    const span =
      instruments.tracer && trace.getSpan(parent)
        ? instruments.tracer.startSpan(spanName(attributes), { kind: SpanKind.CLIENT, attributes }, parent)
        : undefined;
    const record = (outcome: Attributes, failed: boolean) => {
      instruments.duration.record((performance.now() - started) / 1000, {
        ...metricAttributes(attributes),
        ...outcome,
      });
      if (!span) return;
      span.setAttributes(outcome);
      if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    try {
      const response = await fetch(input, init);
      const failed = response.status >= 400;
      record(
        {
          [names.HTTP_RESPONSE_STATUS_CODE]: response.status,
          ...(failed && { [names.ERROR_TYPE]: String(response.status) }),
        },
        failed,
      );
      return response;
    } catch (error) {
      record({ [names.ERROR_TYPE]: errorTypeOf(error) }, true);
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

/** Why no answer came, as a low-cardinality word: the error's own name (`TimeoutError`, `AbortError`, `TypeError` for a network failure). */
function errorTypeOf(error: unknown): string {
  const name = error instanceof Error ? error.name : undefined;
  return name && /^[A-Za-z]{1,40}$/.test(name) ? name : names.OTHER;
}
