// The list gate: at most N lists at once, FIFO hand-over, aborted waiters leave the line.
import { describe, expect, it } from 'vitest';
import { Semaphore } from '../../../src/roles/synchro/list-gate.js';
import { settle } from './fake-clock.js';

describe('Semaphore', () => {
  it('grants N permits, queues the rest in order, and hands a released permit to the next waiter', async () => {
    const s = new Semaphore(2);
    const never = new AbortController().signal;
    const r1 = await s.acquire(never);
    const r2 = await s.acquire(never);
    const order: number[] = [];
    const w3 = s.acquire(never).then((r) => (order.push(3), r));
    const w4 = s.acquire(never).then((r) => (order.push(4), r));
    await settle();
    expect(order).toEqual([]);
    r1();
    r1(); // releasing twice frees one permit only
    await settle();
    expect(order).toEqual([3]);
    r2();
    await settle();
    expect(order).toEqual([3, 4]);
    (await w3)();
    (await w4)();
    // All four released: two permits free again.
    await s.acquire(never);
    await s.acquire(never);
  });

  it('an aborted waiter rejects and does not take a permit', async () => {
    const s = new Semaphore(1);
    const release = await s.acquire(new AbortController().signal);
    const ac = new AbortController();
    const waiting = s.acquire(ac.signal);
    ac.abort(new Error('paused'));
    await expect(waiting).rejects.toThrow('paused');
    release();
    const again = await s.acquire(new AbortController().signal);
    expect(typeof again).toBe('function');
  });
});
