// awaitNoting: a wait that should be short says so while it lasts, and stops saying so once it is over.
import { describe, expect, it } from 'vitest';
import { awaitNoting } from '../../src/lib/lifecycle.js';
import { FakeClock, settle } from '../roles/synchro/fake-clock.js';

describe('awaitNoting', () => {
  it('calls back with the time waited at each interval while the promise is pending, and never after', async () => {
    const clock = new FakeClock();
    let finish!: (v: string) => void;
    const noted: number[] = [];
    const waiting = awaitNoting(new Promise<string>((r) => (finish = r)), 1000, (ms) => noted.push(ms), clock);
    await settle();
    await clock.advance(999);
    expect(noted).toEqual([]);
    await clock.advance(1);
    await clock.advance(1000);
    expect(noted).toEqual([1000, 2000]);
    finish('done');
    await expect(waiting).resolves.toBe('done');
    expect(clock.sleepers).toBe(0);
    await clock.advance(5000);
    expect(noted).toEqual([1000, 2000]);
  });

  it('passes a rejection through and stops noting', async () => {
    const clock = new FakeClock();
    const noted: number[] = [];
    await expect(awaitNoting(Promise.reject(new Error('gone')), 1000, (ms) => noted.push(ms), clock)).rejects.toThrow('gone');
    await settle();
    expect(clock.sleepers).toBe(0);
    await clock.advance(3000);
    expect(noted).toEqual([]);
  });
});
