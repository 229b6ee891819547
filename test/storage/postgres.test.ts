// The storage contract on PostgreSQL: a fresh database per harness on the throwaway server of the global setup.
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/lib/log.js';
import { openStorage } from '../../src/storage/open.js';
import type { StorageOptions } from '../../src/storage/types.js';
import { freshPostgresDatabase } from '../support/postgres.js';
import { storageContractTests, type Harness } from './contract.js';
import { pod } from './fixtures.js';

export async function postgresHarness(opts: StorageOptions = {}): Promise<Harness> {
  const db = await freshPostgresDatabase('cp_storage');
  const opened: { close(): Promise<void> }[] = [];
  const openOne = async (o: StorageOptions = opts) => {
    const s = await openStorage({ url: db.url }, { logger: silentLogger(), ...o });
    opened.push(s);
    return s;
  };
  return {
    storage: await openOne(),
    openAnother: openOne,
    async addNewerMigration() {
      const sql = postgres(db.url, { max: 1, onnotice: () => {} });
      try {
        await sql`INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES ('from-the-future', 4102444800000)`;
      } finally {
        await sql.end();
      }
    },
    async cleanup() {
      for (const s of opened) await s.close();
      await db.drop();
    },
  };
}

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
