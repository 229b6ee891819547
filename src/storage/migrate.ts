// `clusterpedia migrate` in one function: open the storage, apply (or only plan) the pending migrations, close.
import type { Logger } from '../lib/log.js';
import { openStorage, targetExists, type StorageLocation } from './open.js';
import { resolveStorageTarget } from './storage-config.js';
import { describePlan } from './schema-version.js';
import type { MigrationPlan } from './types.js';

export interface MigrateResult {
  plan: MigrationPlan;
  /** "schema version 0 → 1: 0000_init", "schema is up to date (version 1)", or the dry-run form. */
  message: string;
}

/**
 * Migrates the storage at `location` (or plans it with dryRun). Throws ConfigError for bad input and StorageError
 * ('Unavailable' unreachable, 'SchemaMismatch' newer than this binary) otherwise. Safe to run while other processes
 * migrate the same database: PostgreSQL serialises on an advisory lock, SQLite on its write lock.
 */
export async function runMigrate(location: StorageLocation, opts: { logger: Logger; dryRun: boolean }): Promise<MigrateResult> {
  // A plan for a SQLite file not made yet is a fresh database's: planned in memory, so --dry-run creates no file.
  const target = resolveStorageTarget({ url: location.url, configFile: location.configFile, env: location.env ?? process.env });
  const planned = opts.dryRun && !targetExists(target) ? { url: 'sqlite::memory:' } : location;
  const storage = await openStorage(planned, { logger: opts.logger });
  try {
    const plan = await storage.migrate({ dryRun: opts.dryRun });
    return { plan, message: describePlan(plan, opts.dryRun) };
  } finally {
    await storage.close();
  }
}
