// The PostgreSQL test harness: a fresh database per harness on the throwaway server of the global setup.
import postgres from 'postgres';
import { silentLogger } from '../../src/lib/log.js';
import { openStorage } from '../../src/storage/open.js';
import type { StorageOptions } from '../../src/storage/types.js';
import { freshPostgresDatabase } from '../support/postgres.js';
import type { Harness } from './fixtures.js';

/** The harness, plus the database URL for tests that look underneath the storage. */
export async function postgresHarness(opts: StorageOptions = {}): Promise<Harness & { url: string }> {
  const db = await freshPostgresDatabase('cp_storage');
  const opened: { close(): Promise<void> }[] = [];
  const openOne = async (o: StorageOptions = opts) => {
    const s = await openStorage({ url: db.url }, { logger: silentLogger(), ...o });
    opened.push(s);
    return s;
  };
  return {
    url: db.url,
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
