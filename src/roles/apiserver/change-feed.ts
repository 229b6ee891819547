// One reader of the change log per process, fanned out to every watcher: N watchers cost one query per tick, not N.
import type { Logger } from '../../lib/log.js';
import type { Runnable } from '../../lib/lifecycle.js';
import { deadline, sleep } from '../../lib/lifecycle.js';
import { UnansweredError } from '../../storage/errors.js';
import type { Change, StorageReader } from '../../storage/types.js';

export interface FeedSubscriber {
  /** Called with every change after the subscriber's start, in revision order. Must not throw or block. */
  push(changes: readonly Change[], head: string): void;
  /**
   * The feed lost changes (it fell out of the change-log window, or storage went back): the subscriber must end its
   * watch; `message` says why, for the 410 Expired the client is sent.
   */
  expire(message: string): void;
}

export interface ChangeFeedOptions {
  pollIntervalMs: number;
  /** Changes fetched per query. */
  batch?: number;
  /**
   * A read of the change log not answered after this long is given up and tried again (default 30 s): one on a
   * PostgreSQL connection that died without a word would otherwise hold every watch of the process until the kernel
   * gave the connection up, up to a quarter of an hour.
   */
  readTimeoutMs?: number;
}

/**
 * Tails the change log from the revision current at start. Subscribers receive every change with a revision above
 * the feed's head at the time they subscribed. A storage notification wakes the loop early; polling covers misses.
 */
export class ChangeFeed implements Runnable {
  readonly name = 'apiserver-change-feed';
  private head: bigint | undefined;
  private readonly subs = new Set<FeedSubscriber>();
  private wake: (() => void) | undefined;
  private readyResolve!: () => void;
  /** Resolves once the feed knows the head revision. */
  readonly ready: Promise<void> = new Promise((r) => {
    this.readyResolve = r;
  });

  constructor(private readonly storage: Pick<StorageReader, 'subscribe' | 'currentRevision' | 'changesSince'>, private readonly o: ChangeFeedOptions, private readonly log: Logger) {}

  /** The revision up to which subscribers have been fed. */
  get headRevision(): string {
    return (this.head ?? 0n).toString();
  }

  subscribe(s: FeedSubscriber): { head: string; unsubscribe: () => void } {
    this.subs.add(s);
    return { head: this.headRevision, unsubscribe: () => this.subs.delete(s) };
  }

  async start(signal: AbortSignal): Promise<void> {
    const unsubscribe = this.storage.subscribe(() => this.wake?.());
    try {
      while (!signal.aborted) {
        try {
          if (this.head === undefined) {
            this.head = BigInt(await this.read(this.storage.currentRevision()));
            this.readyResolve();
          }
          await this.pump();
        } catch (e: unknown) {
          // Storage down: keep watchers open (they get bookmarks from the last head) and retry.
          this.log.warn({ err: String(e) }, 'change feed cannot read the change log; retrying');
        }
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          void sleep(this.o.pollIntervalMs, signal).then(resolve);
        });
        this.wake = undefined;
      }
    } finally {
      unsubscribe();
    }
  }

  private read<T>(p: Promise<T>): Promise<T> {
    const ms = this.o.readTimeoutMs ?? 30_000;
    return deadline(p, ms, () => new UnansweredError(ms));
  }

  /** Reads everything after head and hands it to the subscribers. */
  private async pump(): Promise<void> {
    const batch = this.o.batch ?? 1000;
    for (;;) {
      const from = this.headRevision;
      const r = await this.read(this.storage.changesSince(from, { types: { kind: 'all' } }, batch));
      if (r.expired) {
        // The feed fell behind the compaction window (storage unreachable for long), or the storage went back (restored
        // from a backup, failed over to a replica that was behind): resume at the current head. Watchers would miss
        // changes; they are ended so that clients relist.
        const current = BigInt(await this.read(this.storage.currentRevision()));
        // The feed's head is one the storage issued, so a head not below the compacted mark was not compacted away: the
        // storage went back past it (it was then above the head, or lost). `current` alone would not tell once a synchro
        // moved the revision up again between the two reads.
        const wentBack = current < BigInt(from) || r.lost === true || BigInt(from) >= BigInt(r.oldestRevision);
        if (wentBack) this.log.warn({ from, current: String(current) }, 'storage revision went back (restored, or failed over to a replica behind); ending watches');
        else this.log.warn({ from }, 'change feed fell behind the change-log window; ending watches');
        this.head = current;
        const message = wentBack
          ? `the storage went back from revision ${from} (restored, failed over, or lost its last commits; now at ${current}): list again`
          : `too old resource version: ${from} (the server fell behind its change log): list again`;
        for (const s of this.subs) s.expire(message);
        return;
      }
      const next = BigInt(r.revision);
      if (next <= (this.head ?? 0n) && r.changes.length === 0) return;
      this.head = next > (this.head ?? 0n) ? next : this.head;
      for (const s of this.subs) s.push(r.changes, this.headRevision);
      if (r.changes.length < batch) return;
    }
  }
}
