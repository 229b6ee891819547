// A counting semaphore for member lists: bounds the parsed pages held at once across every resource of every cluster.
import type { ListGate } from '../../kube/listwatch.js';

export class Semaphore implements ListGate {
  private free: number;
  private readonly waiters: (() => void)[] = [];

  constructor(permits: number) {
    this.free = Math.max(1, permits);
  }

  async acquire(signal: AbortSignal): Promise<() => void> {
    if (this.free > 0) {
      this.free--;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const grant = (): void => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        const i = this.waiters.indexOf(grant);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal.reason ?? new Error('aborted'));
      };
      if (signal.aborted) {
        onAbort();
        return;
      }
      this.waiters.push(grant);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    return this.releaser();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      // Hand the permit straight to the next waiter; only when nobody waits does it go back to the pool.
      if (next) next();
      else this.free++;
    };
  }
}
