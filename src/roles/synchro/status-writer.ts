// Coalesced status writes: a cluster whose state changed is written at most once per interval, not once per event;
// a change to a cluster not written for an interval (its health turned), or to the types it syncs, goes out at once.
import type { Logger } from 'pino';
import { messageOf } from '../../lib/errors.js';
import { systemClock, type Clock, type Runnable } from '../../lib/lifecycle.js';

/** Writes one cluster's current status; throws to be retried on the next tick. */
export type StatusWrite = (cluster: string) => Promise<void>;

/** Run by the cluster manager, which flushes once more after its synchros stopped (their final state). */
export class StatusWriter implements Runnable {
  readonly name = 'synchro status writer';
  private dirty = new Set<string>();
  /** Dirty clusters whose change goes out at once, written or not within the interval (markDirty's `urgent`). */
  private readonly urgent = new Set<string>();
  /** Clusters whose counts and event times moved, by when they first did since their last write. */
  private readonly stale = new Map<string, number>();
  private cycle: Promise<void> | undefined;
  private readonly clock: Clock;
  /** Consecutive cycles with a failed write: the period doubles (up to 10 s) and only the first one is logged. */
  private failures = 0;
  /** When each cluster's status was last written (the clock's time). */
  private readonly written = new Map<string, number>();
  /** Ends the loop's current wait early. */
  private wake: (() => void) | undefined;

  constructor(private readonly o: { write: StatusWrite; intervalMs: number; logger: Logger; clock?: Clock }) {
    this.clock = o.clock ?? systemClock;
  }

  /** `urgent`: a change that is news to readers at once (the types it syncs), written without waiting for the interval. */
  markDirty(cluster: string, urgent = false): void {
    this.dirty.add(cluster);
    if (urgent) this.urgent.add(cluster);
    // Not written for an interval: now rather than at the next tick (writes failing wait for theirs).
    if (this.failures === 0 && this.due(cluster, this.clock.now())) this.wake?.();
  }

  private due(cluster: string, now: number): boolean {
    if (this.urgent.has(cluster)) return true;
    const at = this.written.get(cluster);
    return at === undefined || now - at >= this.o.intervalMs;
  }

  /**
   * Counts and the last event time moved: written within `staleMs` (five intervals), not at the next tick. They
   * move with every event; a status write per cluster per second for them alone would be a load of its own.
   */
  markStale(cluster: string): void {
    if (!this.stale.has(cluster)) this.stale.set(cluster, this.clock.now());
  }

  private get staleMs(): number {
    return 5 * this.o.intervalMs;
  }

  /** Stops writing a cluster's status and waits for a write in progress, so a deletion that follows is final. */
  async forget(cluster: string): Promise<void> {
    this.dirty.delete(cluster);
    this.urgent.delete(cluster);
    this.stale.delete(cluster);
    this.written.delete(cluster);
    await this.cycle;
  }

  /** Writes everything dirty now (tests, shutdown). */
  async flush(): Promise<void> {
    await this.write(false);
  }

  private async write(spaced: boolean): Promise<void> {
    await this.cycle;
    this.cycle = this.writeDirty(spaced);
    await this.cycle;
    this.cycle = undefined;
  }

  async start(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      // A wait that the stop or a due change ends (a listener taken off after each wait: AbortSignal.any would leave an
      // entry per second on the long-lived stop signal, which Node 20 never lets go of; see withChildSignal).
      const nap = new AbortController();
      const stop = (): void => nap.abort();
      signal.addEventListener('abort', stop, { once: true });
      this.wake = stop;
      try {
        // Something dirty and due already (marked while the last cycle wrote): no wait.
        if (this.failures > 0 || ![...this.dirty].some((c) => this.due(c, this.clock.now()))) {
          await this.clock.sleep(Math.min(10_000, this.o.intervalMs * 2 ** Math.min(this.failures, 10)), nap.signal);
        }
      } finally {
        this.wake = undefined;
        signal.removeEventListener('abort', stop);
      }
      if (signal.aborted) break;
      await this.write(true);
    }
  }

  /** Writes the dirty clusters; `spaced`: only those not written for an interval (the others stay dirty). */
  private async writeDirty(spaced: boolean): Promise<void> {
    const now = this.clock.now();
    for (const [name, since] of this.stale) if (now - since >= this.staleMs) this.dirty.add(name);
    const names = [...this.dirty].filter((name) => !spaced || this.due(name, now));
    for (const name of names) {
      this.dirty.delete(name);
      this.urgent.delete(name);
      this.stale.delete(name);
    }
    let failed = false;
    for (const name of names) {
      try {
        this.written.set(name, this.clock.now());
        await this.o.write(name);
      } catch (e: unknown) {
        this.dirty.add(name);
        if (!failed && this.failures === 0) this.o.logger.warn({ cluster: name, err: messageOf(e) }, 'cluster status write failed; will retry');
        failed = true;
      }
    }
    if (failed) this.failures++;
    else if (names.length > 0 && this.failures > 0) {
      this.failures = 0;
      this.o.logger.info('cluster status writes resumed');
    }
  }
}
