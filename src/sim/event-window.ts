// The retained change history of one cluster (like etcd before compaction): watch resume and consistent paged lists read it.
import type { ChangeEvent, SimObject } from './types.js';

export class EventWindow {
  private events: ChangeEvent[] = [];
  private head = 0;
  /** Every revision <= this is gone: reading or watching from an older revision is 410 Expired. */
  compactedRev: number;

  constructor(private capacity: number, startRev: number) {
    this.compactedRev = startRev;
  }

  get size(): number {
    return this.events.length - this.head;
  }

  setCapacity(capacity: number): void {
    this.capacity = Math.max(1, capacity);
    this.trim();
  }

  push(ev: ChangeEvent): void {
    this.events.push(ev);
    this.trim();
  }

  /** Drops every retained event: afterwards only the current revision can be read or watched from. */
  compact(toRev: number): void {
    this.compactedRev = Math.max(this.compactedRev, toRev);
    while (this.head < this.events.length && (this.events[this.head] as ChangeEvent).rev <= toRev) this.head++;
    this.reclaim();
  }

  /** Events with rev > `rev`, oldest first. */
  since(rev: number): ChangeEvent[] {
    let lo = this.head;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.events[mid] as ChangeEvent).rev <= rev) lo = mid + 1;
      else hi = mid;
    }
    return this.events.slice(lo);
  }

  /**
   * What changed in `gr` after revision `rev`, as key → the object at `rev` (null when it did not exist then).
   * A read at `rev` is the current state with these keys replaced.
   */
  stateAt(gr: string, rev: number, keyPrefix = ''): Map<string, SimObject | null> {
    const out = new Map<string, SimObject | null>();
    for (const ev of this.since(rev)) {
      if (ev.gr !== gr || !ev.key.startsWith(keyPrefix) || out.has(ev.key)) continue;
      out.set(ev.key, ev.prev);
    }
    return out;
  }

  private trim(): void {
    while (this.size > this.capacity) {
      const ev = this.events[this.head] as ChangeEvent;
      this.compactedRev = Math.max(this.compactedRev, ev.rev);
      this.head++;
    }
    this.reclaim();
  }

  private reclaim(): void {
    // Splice occasionally rather than shift each time: amortised O(1) per event.
    if (this.head > 1024 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.head = 0;
    }
  }
}
