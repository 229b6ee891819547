// Contract: the storage-level lease used for leader election when there is no host cluster.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/types.js';
import type { Harness, OpenHarness } from './fixtures.js';

export function leaseContract(open: OpenHarness): void {
  describe('leases', () => {
    let h: Harness;
    let s: Storage;
    beforeEach(async () => {
      h = await open();
      s = h.storage;
      await s.migrate();
    });
    afterEach(async () => h.cleanup());

    it('one holder at a time; renewal by the holder; others wait for expiry', async () => {
      expect(await s.tryAcquireLease('synchro', 'a', 400)).toBe(true);
      expect(await s.tryAcquireLease('synchro', 'b', 400)).toBe(false);
      expect(await s.tryAcquireLease('synchro', 'a', 400)).toBe(true);
      expect(await s.tryAcquireLease('other', 'b', 400)).toBe(true);
      await new Promise((r) => setTimeout(r, 500));
      expect(await s.tryAcquireLease('synchro', 'b', 400)).toBe(true);
      expect(await s.tryAcquireLease('synchro', 'a', 400)).toBe(false);
    });

    it('release hands over at once, and only the holder can release', async () => {
      expect(await s.tryAcquireLease('synchro', 'a', 60_000)).toBe(true);
      await s.releaseLease('synchro', 'b');
      expect(await s.tryAcquireLease('synchro', 'b', 60_000)).toBe(false);
      await s.releaseLease('synchro', 'a');
      expect(await s.tryAcquireLease('synchro', 'b', 60_000)).toBe(true);
    });

    it('concurrent candidates: exactly one wins', async () => {
      const wins = await Promise.all(Array.from({ length: 8 }, (_, i) => s.tryAcquireLease('race', `c${i}`, 60_000)));
      expect(wins.filter(Boolean).length).toBe(1);
    });
  });
}
