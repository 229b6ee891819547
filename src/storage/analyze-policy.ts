// When to refresh planner statistics: after the stored rows grew a lot since the last time (a relist, a new cluster).

/**
 * Counts effective writes and says when statistics are stale: at 1k, 2k, 4k … writes since the start, then every
 * time the writes since the last refresh reach the total at that refresh. Without fresh statistics a planner may
 * scan the order index for a selective label instead of seeking the label index.
 */
export class AnalyzePolicy {
  private sinceLast = 0;
  private atLast: number;

  /** `rowsAtStart`: rows already stored when the storage opened (their statistics are assumed fresh). */
  constructor(
    rowsAtStart = 0,
    private readonly minWrites = 1000,
  ) {
    this.atLast = rowsAtStart;
  }

  /** Records `writes` effective writes; true when statistics should be refreshed now. */
  record(writes: number): boolean {
    this.sinceLast += writes;
    if (this.sinceLast < Math.max(this.minWrites, this.atLast)) return false;
    this.atLast += this.sinceLast;
    this.sinceLast = 0;
    return true;
  }
}
