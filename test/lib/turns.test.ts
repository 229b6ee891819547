// TurnQueue: synchronous work starts in arrival order, up to a budget of it per event-loop turn, and the loop goes
// round (timers, sockets) before the next turn's share starts.
import { describe, expect, it } from 'vitest';
import { TurnQueue } from '../../src/lib/turns.js';

const busy = (ms: number): void => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe('TurnQueue', () => {
  const noOtherWork = (): number => 0;

  it('with no budget: the first caller passes at once, the others start one per turn in arrival order', async () => {
    const q = new TurnQueue(0, () => performance.now(), noOtherWork);
    const events: string[] = [];
    expect(q.wait()).toBeUndefined();
    const started = [1, 2, 3].map(async (i) => {
      await q.wait();
      events.push(`start ${i}`);
      // A timer due during this synchronous stretch fires before the next start (as would a socket turning readable).
      setTimeout(() => events.push(`timer after ${i}`), 0);
      busy(5);
    });
    expect(q.length).toBe(3);
    await new Promise((r) => setImmediate(r));
    // A late arrival queues behind those already waiting.
    const late = (async () => {
      await q.wait();
      events.push('start 4');
    })();
    await Promise.all([...started, late]);
    await new Promise((r) => setTimeout(r, 10));
    expect(events).toEqual(['start 1', 'timer after 1', 'start 2', 'timer after 2', 'start 3', 'timer after 3', 'start 4']);
    expect(q.length).toBe(0);
  });

  it('lets callers through at once until the turn has run its budget, then queues them in arrival order', async () => {
    let clock = 0;
    const q = new TurnQueue(10, () => clock, noOtherWork);
    expect(q.wait()).toBeUndefined();
    clock = 4;
    expect(q.wait()).toBeUndefined();
    clock = 10;
    const order: number[] = [];
    const queued = [1, 2, 3, 4].map(async (i) => {
      await q.wait();
      order.push(i);
      clock += 6; // each takes 6 ms of the turn that started it
    });
    expect(q.length).toBe(4);
    // At this turn's end the waiters start while a new budget lasts: two of 6 ms (the second starts at 6 < 10)...
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([1, 2]);
    // ...and the other two on the next turn, after its poll phase.
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([1, 2, 3, 4]);
    await Promise.all(queued);
  });

  it('queues a caller behind those waiting even when the budget is not spent', async () => {
    const q = new TurnQueue(0, () => performance.now(), noOtherWork);
    q.wait();
    const first = q.wait();
    expect(first).toBeInstanceOf(Promise);
    const roomy = new TurnQueue(1_000, () => performance.now(), noOtherWork);
    expect(roomy.wait()).toBeUndefined();
    expect(q.length).toBe(1);
    await first;
  });

  it('gives queued work a share of the loop when other work took the turn before (up to half of it)', async () => {
    let clock = 0;
    let active = 0;
    const q = new TurnQueue(10, () => clock, () => active);
    q.wait();
    // That first piece of work takes the turn's 10 ms; the next ones queue.
    clock += 10;
    active += 10;
    const order: number[] = [];
    const queued = Array.from({ length: 12 }, async (_, i) => {
      await q.wait();
      order.push(i);
      clock += 6;
      active += 6;
    });
    expect(q.length).toBe(12);
    // Before the turn ends, other work (a synchro parsing a member's page) keeps the loop busy for 100 ms.
    active += 100;
    await new Promise((r) => setImmediate(r));
    // Budget max(10, 100 / 2) = 50 ms: nine waiters of 6 ms start (the ninth at 48 < 50).
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    // The turn after had no other work: back to the floor, two of 6 ms.
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    await Promise.all(queued);
  });

  it('is idle again once nobody waits: the next caller passes at once', async () => {
    const q = new TurnQueue(0, () => performance.now(), noOtherWork);
    q.wait();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(q.wait()).toBeUndefined();
  });
});
