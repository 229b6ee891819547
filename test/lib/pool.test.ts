// forEachLimited: a bounded number of calls in flight, every item once, and nothing new started after a failure.
import { describe, expect, it } from 'vitest';
import { forEachLimited } from '../../src/lib/pool.js';

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 1));

describe('forEachLimited', () => {
  it('runs every item once, never more than `limit` at a time, starting them in order', async () => {
    let inFlight = 0;
    let most = 0;
    const started: number[] = [];
    await forEachLimited([...Array(20).keys()], 3, async (i) => {
      started.push(i);
      most = Math.max(most, ++inFlight);
      await tick();
      inFlight--;
    });
    expect(started).toEqual([...Array(20).keys()]);
    expect(most).toBe(3);
  });

  it('rejects with the first failure and starts no item after it', async () => {
    const started: number[] = [];
    const run = forEachLimited([...Array(20).keys()], 2, async (i) => {
      started.push(i);
      await tick();
      if (i === 3) throw new Error('item 3 failed');
    });
    await expect(run).rejects.toThrow('item 3 failed');
    await new Promise((r) => setTimeout(r, 20));
    // 3 failed while 4 ran beside it: 5 and the rest were never started.
    expect(started).toEqual([0, 1, 2, 3, 4]);
  });
});
