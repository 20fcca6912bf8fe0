import {
  type Attributes,
  context,
  type Histogram,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { OTHER } from "./conventions.js";
import { later } from "./later.js";

/** What a client operation (an upstream request, a store operation) records into. */
export interface ClientInstruments {
  /** Undefined when traces are off. */
  tracer?: Tracer;
  duration: Histogram;
}

/** Ends a client operation with what its outcome adds (status, `error.type`), failed or not. */
export type Finish = (outcome: Attributes, failed: boolean) => void;

/**
 * Starts a client operation: a CLIENT span named `name`, made only within a traced operation
 * (nothing else would give it a trace), and its duration, measured when `finish` is called and
 * recorded just after (see later.ts), with `metric`'s attributes (the span's, unless given) and the
 * outcome's.
 */
export function startClient(
  instruments: ClientInstruments,
  name: string,
  attributes: Attributes,
  metric: Attributes = attributes,
): Finish {
  const started = performance.now();
  const parent = context.active();
  const span =
    instruments.tracer && trace.getSpan(parent)
      ? instruments.tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent)
      : undefined;
  return (outcome, failed) => {
    const ended = performance.now();
    later(() => {
      instruments.duration.record((ended - started) / 1000, joined(metric, outcome));
      if (!span) return;
      span.setAttributes(outcome);
      if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end(ended);
    });
  };
}

/** An outcome that adds nothing (a store operation that succeeded). */
export const NO_OUTCOME: Attributes = Object.freeze({});

/** Attribute sets joined before, by their parts: a frozen outcome (a status's) is joined once. */
const joins = new WeakMap<Attributes, WeakMap<Attributes, Attributes>>();

function joined(metric: Attributes, outcome: Attributes): Attributes {
  if (!Object.isFrozen(outcome)) return { ...metric, ...outcome };
  let byOutcome = joins.get(metric);
  if (!byOutcome) {
    byOutcome = new WeakMap();
    joins.set(metric, byOutcome);
  }
  let both = byOutcome.get(outcome);
  if (!both) {
    both = Object.freeze({ ...metric, ...outcome });
    byOutcome.set(outcome, both);
  }
  return both;
}

/** An error as `error.type`: its own name (`StoreUnavailable`, `TimeoutError`, `TypeError`), else `_OTHER`. */
export function errorTypeOf(error: unknown): string {
  const name = error instanceof Error ? error.name : undefined;
  return name && /^[A-Za-z]{1,40}$/.test(name) ? name : OTHER;
}
