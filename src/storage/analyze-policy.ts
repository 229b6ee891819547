// When to refresh planner statistics: after the stored rows grew a lot since the last time (a relist, a new cluster).
import type { Logger } from '../lib/log.js';

/** Rows of one type in one cluster (a resource_types row), or how much a write changed them. */
export interface TypeRows {
  cluster: string;
  group: string;
  version: string;
  resource: string;
  count: number;
}

/**
 * Counts effective writes and says when statistics are stale. Two rules, whichever comes first:
 * - the store: at 1k, 2k, 4k … writes since the start, then every time the writes since the last refresh reach the
 *   total at that refresh. Without fresh statistics a planner may scan the order index for a selective label
 *   instead of seeking the label index.
 * - one cluster, or one resource type across clusters, whose rows grew by as many as it had at the last refresh
 *   (1k at least). Only rows added or removed count here, not updates. A cluster added to a store of a million rows
 *   is otherwise a million writes away from the next refresh, and PostgreSQL estimates one row for a value its
 *   statistics never saw: its plans for that cluster then scan where they should seek (BENCHMARKS.md, "Planner
 *   statistics after a cluster is added": an owner search of a new 10,000-pod cluster took 18–20 ms instead of 2).
 */
export class AnalyzePolicy {
  private sinceLast = 0;
  private atLast = 0;
  /** Rows per group ("c:<cluster>", "t:<group>/<version>/<resource>") at the last refresh, and since. */
  private readonly groupsAtLast = new Map<string, number>();
  private readonly grownSinceLast = new Map<string, number>();

  /** `stored`: the rows per cluster and type when the storage opened (their statistics are assumed fresh). */
  constructor(
    stored: Iterable<TypeRows> = [],
    private readonly minWrites = 1000,
  ) {
    for (const t of stored) {
      this.atLast += t.count;
      for (const g of groupsOf(t)) this.groupsAtLast.set(g, (this.groupsAtLast.get(g) ?? 0) + t.count);
    }
  }

  /** The rows the store held at the last refresh (at first, when it opened). */
  get rowsAtLastRefresh(): number {
    return this.atLast;
  }

  /** Records `writes` effective writes, `rows` how they changed the row counts; true when statistics should be refreshed now. */
  record(writes: number, rows: Iterable<TypeRows> = []): boolean {
    this.sinceLast += writes;
    let due = this.sinceLast >= Math.max(this.minWrites, this.atLast);
    for (const t of rows) {
      if (t.count === 0) continue;
      for (const g of groupsOf(t)) {
        const grown = (this.grownSinceLast.get(g) ?? 0) + t.count;
        this.grownSinceLast.set(g, grown);
        if (grown >= Math.max(this.minWrites, this.groupsAtLast.get(g) ?? 0)) due = true;
      }
    }
    if (!due) return false;
    this.atLast += this.sinceLast;
    this.sinceLast = 0;
    for (const [g, grown] of this.grownSinceLast) {
      const now = (this.groupsAtLast.get(g) ?? 0) + grown;
      if (now > 0) this.groupsAtLast.set(g, now);
      else this.groupsAtLast.delete(g);
    }
    this.grownSinceLast.clear();
    return true;
  }
}

function groupsOf(t: TypeRows): [string, string] {
  return [`c:${t.cluster}`, `t:${t.group}/${t.version}/${t.resource}`];
}

/** How much of the time a store spends refreshing its statistics at most: one twentieth. */
const IDLE_PER_REFRESH = 19;

/**
 * Runs `refresh` when the policy says statistics are stale, but never more than one twentieth of the time: after a
 * refresh that took t, the next waits until 19 t have passed, and a refresh due before then runs on a timer (its
 * writes go on meanwhile), once however many writes made it due. During the initial sync of a hundred clusters every
 * cluster passes 1k, 2k, 4k, 8k rows in turn; a PostgreSQL ANALYZE of a million rows takes about a second, and
 * without this bound the refreshes would have taken as long as the sync. A refresh that fails goes to `onError`.
 */
export class StatisticsRefresher {
  private readonly policy: AnalyzePolicy;
  private due = false;
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private nextAllowed = -Infinity;
  private closed = false;

  private readonly now: () => number;

  /**
   * `changedSinceRefresh`: rows the database counts as changed since its statistics were last taken (PostgreSQL's
   * n_mod_since_analyze), when it keeps that count. When they are a hundredth of the store or more (1k at least),
   * the first write refreshes: this process cannot tell which clusters they were.
   */
  constructor(
    stored: readonly TypeRows[],
    private readonly refresh: () => Promise<void>,
    private readonly onError: (err: unknown) => void,
    o: { changedSinceRefresh?: number; now?: () => number } = {},
  ) {
    this.policy = new AnalyzePolicy(stored);
    this.now = o.now ?? performance.now.bind(performance);
    this.due = (o.changedSinceRefresh ?? 0) >= Math.max(1000, this.policy.rowsAtLastRefresh / 100);
  }

  /** After an effective write: refreshes now when due and allowed (resolving when done), or schedules it. */
  async afterWrite(writes: number, rows: Iterable<TypeRows>): Promise<void> {
    if (this.policy.record(writes, rows)) this.due = true;
    if (!this.due || this.closed || this.running || this.timer) return;
    if (this.nextAllowed <= this.now()) await this.run();
    else this.schedule();
  }

  private schedule(): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.run();
    }, Math.max(0, Math.ceil(this.nextAllowed - this.now())));
    this.timer.unref();
  }

  private async run(): Promise<void> {
    if (this.closed || this.running) return;
    await this.refreshNow();
  }

  private async refreshNow(): Promise<void> {
    this.due = false;
    const started = this.now();
    let finished = (): void => {};
    this.running = new Promise<void>((resolve) => (finished = resolve));
    try {
      await this.refresh();
    } catch (e: unknown) {
      this.onError(e);
    } finally {
      finished();
      this.running = undefined;
      const ended = this.now();
      this.nextAllowed = ended + IDLE_PER_REFRESH * (ended - started);
    }
    // Made due again while it ran: the next write would see to it, but there may be none for a while.
    if (this.due) this.schedule();
  }

  /**
   * No refresh starts from now on; resolves once one that runs has finished. `refreshDue`: one due but waiting for
   * its turn runs first, for a store that keeps no count of the rows changed since its statistics were taken
   * (SQLite, whose bounded ANALYZE takes milliseconds): the next process would otherwise take them as fresh.
   */
  async close(o: { refreshDue?: boolean } = {}): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
    if (o.refreshDue && this.due) await this.refreshNow();
  }
}

/** A failed refresh is only logged: the write before it is committed, and the next refresh may succeed. */
export function statisticsFailed(log: Logger, e: unknown): void {
  log.warn({ err: e instanceof Error ? e.message : String(e) }, 'refreshing planner statistics failed');
}
