// The SQLite test harness: a temporary database file per harness.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../src/lib/log.js';
import { openStorage } from '../../src/storage/open.js';
import type { StorageOptions } from '../../src/storage/types.js';
import type { Harness } from './fixtures.js';

export async function sqliteHarness(opts: StorageOptions = {}): Promise<Harness & { file: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'cp-storage-test-'));
  const url = `sqlite:${join(dir, 'test.db')}`;
  const opened: { close(): Promise<void> }[] = [];
  const openOne = async (o: StorageOptions = opts) => {
    const s = await openStorage({ url }, { logger: silentLogger(), ...o });
    opened.push(s);
    return s;
  };
  return {
    file: join(dir, 'test.db'),
    storage: await openOne(),
    openAnother: openOne,
    async addNewerMigration() {
      const db = new Database(join(dir, 'test.db'));
      try {
        db.prepare('INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES (?, ?)').run('from-the-future', 4_102_444_800_000);
      } finally {
        db.close();
      }
    },
    async cleanup() {
      for (const s of opened) await s.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
