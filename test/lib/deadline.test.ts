// deadline(): a call that may never settle is given up after its time, on the clock it is given.
import { describe, expect, it } from 'vitest';
import { deadline } from '../../src/lib/lifecycle.js';
import { FakeClock, settle } from '../roles/synchro/fake-clock.js';

const expired = (): Error => new Error('too late');

describe('deadline', () => {
  it('answers what the call answers in time, and leaves no timer behind', async () => {
    const clock = new FakeClock();
    expect(await deadline(Promise.resolve(7), 1000, expired, clock)).toBe(7);
    await expect(deadline(Promise.reject(new Error('refused')), 1000, expired, clock)).rejects.toThrow('refused');
    expect(clock.sleepers).toBe(0);
  });

  it('throws what expired() makes once the time passes, and a late failure of the call goes unheard', async () => {
    const clock = new FakeClock();
    let fail: (e: Error) => void = () => {};
    const call = new Promise<number>((_, reject) => { fail = reject; });
    let outcome: unknown;
    const waited = deadline(call, 1000, expired, clock).then((v) => { outcome = v; }, (e: unknown) => { outcome = e; });
    await clock.advance(999);
    expect(outcome).toBeUndefined();
    await clock.advance(1);
    await waited;
    expect(outcome).toEqual(new Error('too late'));
    // Vitest fails the run on an unhandled rejection: this one must be handled by deadline().
    fail(new Error('connection closed'));
    await settle();
  });
});
