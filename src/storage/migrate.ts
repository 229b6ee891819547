// `clusterpedia migrate` in one function: open the storage, apply (or only plan) the pending migrations, close.
import type { Logger } from '../lib/log.js';
import { openStorageWaiting, targetExists, type StorageLocation, type StorageWait } from './open.js';
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
 * ('Unavailable' unreachable — after `wait` when given —, 'SchemaMismatch' newer than this binary) otherwise. Safe to
 * run while other processes migrate the same database: PostgreSQL serialises on an advisory lock, SQLite on its write
 * lock. Undefined when `wait.signal` aborts while the database is still unreachable.
 */
export async function runMigrate(location: StorageLocation, opts: { logger: Logger; dryRun: boolean; wait?: StorageWait }): Promise<MigrateResult | undefined> {
  // A plan for a SQLite file not made yet is a fresh database's: planned in memory, so --dry-run creates no file.
  const target = resolveStorageTarget({ url: location.url, configFile: location.configFile, env: location.env ?? process.env });
  const planned = opts.dryRun && !targetExists(target) ? { url: 'sqlite::memory:' } : location;
  let plan: MigrationPlan | undefined;
  const wait = opts.wait ?? { timeoutMs: 0, signal: new AbortController().signal };
  const storage = await openStorageWaiting(planned, { logger: opts.logger }, wait, async (s) => {
    plan = await s.migrate({ dryRun: opts.dryRun });
  });
  if (!storage || !plan) return undefined;
  await storage.close();
  return { plan, message: describePlan(plan, opts.dryRun) };
}
