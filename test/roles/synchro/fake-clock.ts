// A manual clock for tests (STYLE §13): sleeps resolve only when the test advances time.
import type { Clock } from '../../../src/lib/lifecycle.js';

export class FakeClock implements Clock {
  private t = 0;
  private timers: { at: number; resolve: () => void }[] = [];

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = { at: this.t + ms, resolve: () => resolve() };
      this.timers.push(timer);
      signal?.addEventListener('abort', () => {
        this.timers = this.timers.filter((x) => x !== timer);
        resolve();
      }, { once: true });
    });
  }

  /** Number of sleeps waiting. */
  get sleepers(): number {
    return this.timers.length;
  }

  /** Moves time forward, waking every sleep that is due, and lets promise callbacks run. */
  async advance(ms: number): Promise<void> {
    this.t += ms;
    const due = this.timers.filter((x) => x.at <= this.t);
    this.timers = this.timers.filter((x) => x.at > this.t);
    for (const d of due) d.resolve();
    await settle();
  }
}

/** Lets pending promise callbacks run (several turns of the microtask and macrotask queues). */
export async function settle(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((r) => setImmediate(r));
}
