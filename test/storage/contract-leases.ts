// Contract: the storage-level lease used for leader election when there is no host cluster.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStorageError } from '../../src/storage/errors.js';
import type { Storage } from '../../src/storage/types.js';
import { pod, type Harness, type OpenHarness } from './fixtures.js';

/** What a refused write fails with: a retryable Conflict that names the lease, or undefined when it did not fail. */
export async function refusal(p: Promise<unknown>): Promise<{ code: string; retryable: boolean; message: string } | undefined> {
  try {
    await p;
    return undefined;
  } catch (e: unknown) {
    if (!isStorageError(e)) throw e;
    return { code: e.code, retryable: e.retryable, message: e.message };
  }
}

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

    it('fenced writes commit only while their holder holds the lease; a holder whose lease was taken writes nothing', async () => {
      const status = (tag: string) => ({ spec: {}, status: { tag }, updatedAt: '2026-01-01T00:00:00Z' });
      const podsType = { group: '', version: 'v1', resource: 'pods' };
      s.fenceWrites({ lease: 'synchro', holder: 'a' });
      const refused = { code: 'Conflict', retryable: true, message: expect.stringContaining('storage lease synchro') };
      // Not holding it yet: nothing may be written.
      expect(await refusal(s.write({ upserts: [pod({ cluster: 'c1', namespace: 'ns', name: 'early', rv: '1' })], deletes: [] }))).toEqual(refused);
      expect(await s.get({ cluster: 'c1', group: '', version: 'v1', resource: 'pods', namespace: 'ns', name: 'early' })).toBeUndefined();

      expect(await s.tryAcquireLease('synchro', 'a', 300)).toBe(true);
      await s.write({ upserts: [pod({ cluster: 'c1', namespace: 'ns', name: 'p', rv: '1' }), pod({ cluster: 'c2', namespace: 'ns', name: 'q', rv: '1' })], deletes: [] });
      expect(await s.putClusterStatus('c1', status('a-1'))).toBe(true);
      expect(await s.putClusterStatus('c2', status('a-2'))).toBe(true);
      // Expired but taken by nobody: nobody else can have written, the holder goes on.
      await new Promise((r) => setTimeout(r, 400));
      await s.write({ upserts: [pod({ cluster: 'c1', namespace: 'ns', name: 'p', rv: '2' })], deletes: [] });
      const head = await s.currentRevision();

      expect(await s.tryAcquireLease('synchro', 'b', 60_000)).toBe(true);
      expect(await refusal(s.write({ upserts: [pod({ cluster: 'c1', namespace: 'ns', name: 'p', rv: '3' })], deletes: [] }))).toEqual(refused);
      expect(await refusal(s.write({ upserts: [], deletes: [{ cluster: 'c2', group: '', version: 'v1', resource: 'pods', namespace: 'ns', name: 'q' }] }))).toEqual(refused);
      expect(await refusal(s.cleanCluster('c2'))).toEqual(refused);
      expect(await refusal(s.cleanResource('c1', podsType))).toEqual(refused);
      expect(await refusal(s.putClusterStatus('c1', status('late')))).toEqual(refused);
      expect(await refusal(s.deleteClusterStatus('c2'))).toEqual(refused);
      // And nothing of it reached storage.
      expect(await s.currentRevision()).toBe(head);
      const memberRv = (name: string, cluster: string) => s.get({ cluster, group: '', version: 'v1', resource: 'pods', namespace: 'ns', name })
        .then((r) => r?.resourceVersion);
      expect(await memberRv('p', 'c1')).toBe('2');
      expect(await memberRv('q', 'c2')).toBe('1');
      const statuses = await s.clusterStatuses();
      expect(statuses.get('c1')?.status).toEqual({ tag: 'a-1' });
      expect(statuses.get('c2')?.status).toEqual({ tag: 'a-2' });
      // The old holder cannot renew its way back.
      expect(await s.tryAcquireLease('synchro', 'a', 60_000)).toBe(false);

      // The new holder's writes go through.
      s.fenceWrites({ lease: 'synchro', holder: 'b' });
      await s.write({ upserts: [pod({ cluster: 'c1', namespace: 'ns', name: 'p', rv: '3' })], deletes: [] });
      expect(await memberRv('p', 'c1')).toBe('3');
      expect(await s.cleanCluster('c2')).toBe(1);
      await s.deleteClusterStatus('c2');
      expect([...(await s.clusterStatuses()).keys()]).toEqual(['c1']);
    });

    it('concurrent candidates: exactly one wins', async () => {
      const wins = await Promise.all(Array.from({ length: 8 }, (_, i) => s.tryAcquireLease('race', `c${i}`, 60_000)));
      expect(wins.filter(Boolean).length).toBe(1);
    });
  });
}
