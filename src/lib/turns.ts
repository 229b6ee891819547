// Work that runs in one synchronous stretch on the event loop's thread starts in arrival order, a few milliseconds of
// it per turn of the loop.
//
// better-sqlite3 answers on the event loop's own thread, so a SQLite list is one synchronous stretch of several
// milliseconds, and a synchro's write batch one of up to ~100 ms. Started straight from the HTTP parser, a busy
// apiserver ran such stretches back to back inside one poll phase and read the sockets unevenly: under 200 clients
// some were served 40 times in 20 s and most once (client p99 ~20 s). Bounding the work started per turn puts a poll
// between every few of them, so every request is read as it arrives and starts after those read before it, and
// `--max-requests-inflight` sees the real backlog. The binding role gives its apiserver and its synchro's storage
// writes one queue, so reads and write batches take turns.

/** Synchronous work a turn may start before the rest waits for the next turn, milliseconds, at least. */
export const TURN_BUDGET_MS = 10;
/**
 * When other work shares the loop (the binding role's synchro parsing member pages), a turn may start queued work for
 * up to this share of the other work's time in the turn before, capped at TURN_BUDGET_MAX_MS.
 */
export const TURN_SHARE = 0.5;
export const TURN_BUDGET_MAX_MS = 100;

export class TurnQueue {
  private readonly waiting: (() => void)[] = [];
  private head = 0;
  /** When this turn's first piece of work started; undefined between turns. */
  private turnStart: number | undefined;
  private budgetMs: number;
  /** The loop's busy time when the last turn ended (performance.eventLoopUtilization), and work timed since. */
  private lastActive = 0;
  private workMs = 0;

  constructor(
    private readonly minBudgetMs = TURN_BUDGET_MS,
    private readonly now: () => number = () => performance.now(),
    private readonly active: () => number = () => performance.eventLoopUtilization().active,
  ) {
    this.budgetMs = minBudgetMs;
  }

  /**
   * Resolves when it is the caller's turn: at once when nobody waits and this turn's budget is not spent (the work
   * before it in this turn ran already: the caller runs after it), else in arrival order on a later turn.
   */
  wait(): Promise<void> | undefined {
    if (this.length === 0 && this.withinBudget()) {
      this.timeWork(this.now(), undefined);
      return undefined;
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Callers waiting for their turn. */
  get length(): number {
    return this.waiting.length - this.head;
  }

  private withinBudget(): boolean {
    if (this.turnStart === undefined) {
      this.openTurn();
      return true;
    }
    return this.now() - this.turnStart < this.budgetMs;
  }

  /** Starts accounting a turn; it ends in this turn's check phase (or the next one's, when opened in a check phase). */
  private openTurn(): void {
    this.turnStart = this.now();
    setImmediate(this.endTurn);
  }

  private readonly endTurn = (): void => {
    // The next budget: the floor, or a share of what the loop did besides the work started here.
    const active = this.active();
    const other = Math.max(0, active - this.lastActive - this.workMs);
    this.budgetMs = Math.min(TURN_BUDGET_MAX_MS, Math.max(this.minBudgetMs, other * TURN_SHARE));
    this.lastActive = active;
    this.workMs = 0;
    this.turnStart = undefined;
    if (this.length === 0) return;
    // The waiters start here, in the check phase, while the budget lasts; the next turn's poll comes after.
    this.openTurn();
    this.release();
  };

  /** Starts the first waiter, and once its synchronous part has run, the next one if the budget allows. */
  private release(): void {
    const resolve = this.take();
    if (!resolve) return;
    const started = this.now();
    resolve();
    this.timeWork(started, this.afterRelease);
  }

  /**
   * Adds the synchronous part of work that starts now to this turn's work time, then calls `then`: the caller's
   * continuation and every promise job it chains run before a tick queued from a job queued after them.
   */
  private timeWork(started: number, then: (() => void) | undefined): void {
    queueMicrotask(() => process.nextTick(() => {
      this.workMs += this.now() - started;
      then?.();
    }));
  }

  private readonly afterRelease = (): void => {
    if (this.turnStart !== undefined && this.length > 0 && this.now() - this.turnStart < this.budgetMs) this.release();
  };

  private take(): (() => void) | undefined {
    const resolve = this.waiting[this.head];
    if (resolve === undefined) return undefined;
    this.waiting[this.head] = noop;
    this.head++;
    if (this.head === this.waiting.length) {
      this.waiting.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting.splice(0, this.head);
      this.head = 0;
    }
    return resolve;
  }
}

function noop(): void {}
