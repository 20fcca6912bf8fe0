/**
 * `operation`'s outcome, unless `ms` milliseconds pass first: then a rejection with `missed()`'s
 * error. The operation itself goes on (nothing can stop a request already sent); its outcome is
 * then ignored.
 */
export function withDeadline<T>(operation: Promise<T>, ms: number, missed: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(missed()), ms);
  });
  // A late failure of the operation must not surface as an unhandled rejection.
  operation.catch(() => {});
  return Promise.race([operation, late]).finally(() => clearTimeout(timer));
}
