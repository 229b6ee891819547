// PostgreSQL migrations: drizzle's own migrator fed the embedded drizzle-kit migrations, under an advisory lock.
import { PostgresJsSession } from 'drizzle-orm/postgres-js';
import { PgDialect } from 'drizzle-orm/pg-core';
import { drizzleMigrations, migrationPlan } from '../schema-version.js';
import type { MigrationPlan } from '../types.js';
import type { PostgresConnection } from '../storage-config.js';
import { createPool, type Pg } from './connection.js';
import { migrations } from './embedded-migrations.js';
import { mapPostgresError } from './errors.js';
import { originRevision } from '../revision-origin.js';

/** drizzle's defaults, so `drizzle-kit migrate` and this code agree on what is applied. */
const MIGRATIONS_SCHEMA = 'drizzle';
const MIGRATIONS_TABLE = '__drizzle_migrations';
/** Session advisory lock held while migrating: a second process (another replica starting) waits, then sees nothing to do. */
const MIGRATE_LOCK = 0x6d696772; // "migr"

/** Migrations recorded in the database (0 when it was never migrated). */
export async function appliedMigrations(pool: Pg): Promise<number> {
  const r = await pool.unsafe(`SELECT to_regclass($1) IS NOT NULL AS present`, [`${MIGRATIONS_SCHEMA}.${MIGRATIONS_TABLE}`]);
  if (!(r[0] as { present?: boolean } | undefined)?.present) return 0;
  const n = await pool.unsafe(`SELECT count(*)::int AS n FROM "${MIGRATIONS_SCHEMA}"."${MIGRATIONS_TABLE}"`);
  return Number((n[0] as { n?: number } | undefined)?.n ?? 0);
}

/**
 * Applies what is pending. The lock lives on a connection of its own (not from `pool`, which may have a single
 * connection that the migrator's transaction needs).
 */
export async function migratePostgres(pool: Pg, conn: PostgresConnection, dryRun: boolean): Promise<MigrationPlan> {
  const lock = createPool({ ...conn, max: 1 });
  try {
    await lock.unsafe('SELECT pg_advisory_lock($1)', [MIGRATE_LOCK]);
    const plan = migrationPlan(await appliedMigrations(pool), migrations);
    if (dryRun || plan.applied.length === 0) return plan;
    const dialect = new PgDialect();
    // The migrator runs on the pool (its transaction takes a pool connection); the lock connection only waits.
    await dialect.migrate(drizzleMigrations(migrations), new PostgresJsSession(pool, dialect, undefined), {
      migrationsFolder: '',
      migrationsSchema: MIGRATIONS_SCHEMA,
      migrationsTable: MIGRATIONS_TABLE,
    });
    await pool.unsafe(`INSERT INTO meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [String(migrations.length)]);
    // A store created now: its revisions start at its origin (revision-origin.ts), the change log empty up to there.
    // Not if a writer got in first (a process that does not migrate takes no lock): one statement.
    if (plan.from === 0) {
      await pool.unsafe(`WITH r AS (INSERT INTO meta (key, value) VALUES ('revision', $1) ON CONFLICT (key) DO NOTHING RETURNING 1)
        INSERT INTO meta (key, value) SELECT 'compacted_revision', $1 FROM r ON CONFLICT (key) DO NOTHING`, [String(originRevision())]);
    }
    return plan;
  } catch (e: unknown) {
    throw mapPostgresError(e, 'migrate');
  } finally {
    // Ending the session releases the advisory lock even if the unlock could not be sent.
    await lock.end({ timeout: 5 });
  }
}
