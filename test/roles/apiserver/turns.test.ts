// TurnQueue: requests start in arrival order, one per event-loop turn, with the loop's I/O polled in between.
import { describe, expect, it } from 'vitest';
import { TurnQueue } from '../../../src/roles/apiserver/turns.js';

async function start(q: TurnQueue, name: string, order: string[]): Promise<void> {
  await q.wait();
  order.push(name);
}

describe('TurnQueue', () => {
  it('lets the first caller of a turn through at once and the others in arrival order', async () => {
    const q = new TurnQueue();
    const order: string[] = [];
    expect(q.wait()).toBeUndefined();
    order.push('a');
    const rest = ['b', 'c', 'd'].map((n) => start(q, n, order));
    expect(q.length).toBe(3);
    // A late arrival queues behind those already waiting.
    await new Promise((r) => setImmediate(r));
    const late = start(q, 'e', order);
    await Promise.all([...rest, late]);
    expect(order).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(q.length).toBe(0);
  });

  it('lets the event loop go round between two starts, so what became ready meanwhile runs first', async () => {
    const q = new TurnQueue();
    const events: string[] = [];
    q.wait();
    const waiters = [1, 2, 3].map(async (i) => {
      await q.wait();
      events.push(`start ${i}`);
      // A timer due during a synchronous stretch fires before the next start (as would a socket that became readable).
      setTimeout(() => events.push(`timer after ${i}`), 0);
      const until = performance.now() + 5;
      while (performance.now() < until);
    });
    await Promise.all(waiters);
    await new Promise((r) => setTimeout(r, 10));
    expect(events).toEqual(['start 1', 'timer after 1', 'start 2', 'timer after 2', 'start 3', 'timer after 3']);
  });

  it('is idle again once nobody waits: the next caller passes at once', async () => {
    const q = new TurnQueue();
    q.wait();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(q.wait()).toBeUndefined();
  });
});
