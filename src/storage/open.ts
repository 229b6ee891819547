// openStorage: resolves the target and loads its backend lazily, so the native SQLite addon loads only when used.
import { existsSync } from 'node:fs';
import { Backoff } from '../lib/backoff.js';
import { systemClock, type Clock } from '../lib/lifecycle.js';
import type { Logger } from '../lib/log.js';
import { isStorageError, StorageError } from './errors.js';
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

/** How long a long-running role waits at start for a database it cannot reach (--storage-initialization-timeout). */
export interface StorageWait {
  /** Give up after this long, milliseconds; 0 tries once. */
  timeoutMs: number;
  /** Stops the wait (shutdown): the opener then resolves undefined. */
  signal: AbortSignal;
  clock?: Clock;
}

/**
 * Opens the storage and readies it with `prepare` (readySchema), trying both again with back-off (1 s doubling to
 * 10 s) while the database answers a retryable Unavailable — a PostgreSQL that is starting, failing over or not yet
 * routable, a schema another process has yet to migrate — for up to `wait.timeoutMs`, as kube-apiserver waits for
 * etcd. Anything else (bad credentials, a missing database, a newer schema) fails at once. Resolves undefined when
 * `wait.signal` aborts first.
 */
export async function openStorageWaiting(
  location: StorageLocation,
  opts: { logger: Logger } & StorageOptions,
  wait: StorageWait,
  prepare: (storage: Storage) => Promise<void> = async () => {},
): Promise<Storage | undefined> {
  const clock = wait.clock ?? systemClock;
  const started = clock.now();
  const backoff = new Backoff({ initialMs: 1000, maxMs: 10_000, jitter: 0.1 });
  for (;;) {
    let storage: Storage | undefined;
    try {
      storage = await openStorage(location, opts);
      await prepare(storage);
      if (backoff.attempts > 0) opts.logger.info({ attempts: backoff.attempts + 1, waitedMs: clock.now() - started }, 'storage ready');
      return storage;
    } catch (e: unknown) {
      await storage?.close().catch(() => {});
      if (!isStorageError(e) || e.code !== 'Unavailable' || !e.retryable) throw e;
      const waitedMs = clock.now() - started;
      const leftMs = wait.timeoutMs - waitedMs;
      if (leftMs <= 0) {
        const tried = backoff.attempts === 0 ? 'tried once (--storage-initialization-timeout 0)' : `gave up after ${Math.round(waitedMs / 1000)}s of trying (--storage-initialization-timeout)`;
        throw new StorageError('Unavailable', `${e.message}; ${tried}`, true, { cause: e });
      }
      const retryInMs = Math.min(backoff.next(), leftMs);
      opts.logger.warn({ err: e.message, attempt: backoff.attempts, retryInMs }, 'storage not ready; trying again');
      await clock.sleep(retryInMs, wait.signal);
      if (wait.signal.aborted) return undefined;
    }
  }
}

/**
 * A role's schema step: with `migrate`, applies pending migrations (saying what it applied); without (the split
 * deployment, where only `clusterpedia migrate` changes the schema), a schema this binary finds behind is one to wait
 * for — a retryable Unavailable for openStorageWaiting — rather than one to serve from and fail every request.
 */
export async function readySchema(storage: Storage, migrate: boolean, logger: Logger): Promise<void> {
  if (migrate) {
    const plan = await storage.migrate();
    if (plan.applied.length > 0) logger.info({ from: plan.from, to: plan.to, applied: plan.applied }, 'storage migrated');
    return;
  }
  const plan = await storage.migrate({ dryRun: true });
  if (plan.applied.length > 0) {
    throw new StorageError('Unavailable', `the storage schema is at version ${plan.from} and this clusterpedia needs ${plan.to}; waiting for \`clusterpedia migrate\` (this role runs with --migrate=false)`, true);
  }
}
