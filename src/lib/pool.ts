// Runs an async function over items with at most `limit` calls in flight, in the items' order of start.

/** Rejects with the first call's failure; once one failed, no further item is started. */
export async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      try {
        await fn(items[next++] as T);
      } catch (e: unknown) {
        failed = true;
        throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
}
