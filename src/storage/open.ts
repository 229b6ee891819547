// openStorage: resolves the target and loads its backend lazily, so the native SQLite addon loads only when used.
import { existsSync } from 'node:fs';
import type { Logger } from '../lib/log.js';
import { StorageError } from './errors.js';
import { describeTarget, resolveStorageTarget, type StorageTarget } from './storage-config.js';
import type { Storage, StorageOptions } from './types.js';

/** Where the storage is (API.md §1): a --storage URL, or a --storage-config file that wins over it. */
export interface StorageLocation {
  /** sqlite:<path>, sqlite::memory:, postgres://user:pass@host:port/db?sslmode=… (default sqlite:./clusterpedia.db). */
  url?: string;
  /** Clusterpedia's internalstorage YAML. */
  configFile?: string;
  /** DB_* overrides for the config file; defaults to process.env (the deployed secrets arrive as DB_PASSWORD). */
  env?: Record<string, string | undefined>;
}

/** A backend opens the targets of its own dialect. */
export type OpenBackend = (target: StorageTarget, opts: { logger: Logger } & StorageOptions) => Promise<Storage>;

/** Name → lazy import: esbuild keeps both in the bundle, but better-sqlite3 (external) is loaded only for SQLite. */
const backends: Record<StorageTarget['dialect'], () => Promise<OpenBackend>> = {
  sqlite: async () => (await import('./sqlite/storage.js')).openSqliteStorage,
  postgres: async () => (await import('./postgres/storage.js')).openPostgresStorage,
};

/**
 * Opens a storage without migrating it (call `migrate()` when the role is allowed to). Throws ConfigError for
 * bad input, StorageError 'Unavailable' when the database cannot be reached, 'SchemaMismatch' when its schema
 * is newer than this binary. Never logs or throws a password.
 */
export async function openStorage(location: StorageLocation, opts: { logger: Logger } & StorageOptions): Promise<Storage> {
  const target = resolveStorageTarget({ url: location.url, configFile: location.configFile, env: location.env ?? process.env });
  opts.logger.debug({ storage: describeTarget(target) }, 'opening storage');
  if (opts.mustExist && !targetExists(target)) throw new StorageError('NotFound', `no SQLite database at ${target.dialect === 'sqlite' ? target.path : ''}`, false);
  const open = await backends[target.dialect]();
  return open(target, opts);
}

/** False only for a SQLite file that is not there (opening it would create it); a server's database is asked when opened. */
export function targetExists(target: StorageTarget): boolean {
  return target.dialect !== 'sqlite' || target.path === ':memory:' || existsSync(target.path);
}
