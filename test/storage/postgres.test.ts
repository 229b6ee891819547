// The storage contract on PostgreSQL, plus what only PostgreSQL does (LISTEN/NOTIFY between processes).
import { describe, expect, it } from 'vitest';
import { storageContractTests } from './contract.js';
import { pod } from './fixtures.js';
import { postgresHarness } from './harness-postgres.js';

storageContractTests('postgres', postgresHarness);

describe('postgres only', () => {
  it('LISTEN/NOTIFY: a storage in another process hears the revisions another one writes', async () => {
    const h = await postgresHarness();
    try {
      await h.storage.migrate();
      const reader = await h.openAnother();
      const heard: string[] = [];
      reader.subscribe((r) => heard.push(r));
      // LISTEN is set up asynchronously on the first subscribe: wait until it is in place.
      const deadline = Date.now() + 10_000;
      let n = 0;
      while (heard.length === 0 && Date.now() < deadline) {
        await h.storage.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: `p${n++}` })], deletes: [] });
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(heard.length).toBeGreaterThan(0);
      expect(Number(heard[heard.length - 1])).toBeLessThanOrEqual(n);
    } finally {
      await h.cleanup();
    }
  });
});
