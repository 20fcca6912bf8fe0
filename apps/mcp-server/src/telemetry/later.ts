/**
 * Runs `record` once the turn of the event loop that asked is over: what a request's telemetry
 * records at its end (a histogram point, a span ended at the time it ended) is work the answer
 * need not wait for, so an answer written in the same turn reaches its client first. One
 * `setImmediate` serves every record of a turn.
 */
export function later(record: () => void): void {
  if (!queue.length) setImmediate(flush);
  queue.push(record);
}

let queue: (() => void)[] = [];

function flush(): void {
  const records = queue;
  queue = [];
  for (const record of records) record();
}
