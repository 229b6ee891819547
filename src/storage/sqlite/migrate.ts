// SQLite migrations: drizzle's own migrator fed the embedded drizzle-kit migrations (no folder at run time).
import { BetterSQLiteSession } from 'drizzle-orm/better-sqlite3';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import { drizzleMigrations, migrationPlan } from '../schema-version.js';
import type { MigrationPlan } from '../types.js';
import type { Db } from './connection.js';
import { migrations } from './embedded-migrations.js';
import { mapSqliteError } from './errors.js';
import { originRevision } from '../revision-origin.js';
import { refreshStatistics, writeMeta } from './write.js';

/** drizzle's default table, so `drizzle-kit migrate` and this code agree on what is applied. */
const MIGRATIONS_TABLE = '__drizzle_migrations';

/** Migrations recorded in the database (0 when it was never migrated). */
export function appliedMigrations(db: Db): number {
  const exists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(MIGRATIONS_TABLE);
  if (!exists) return 0;
  return Number((db.prepare(`SELECT count(*) AS n FROM "${MIGRATIONS_TABLE}"`).get() as { n: number }).n);
}

/**
 * Applies what is pending. Two processes may race on one file: drizzle's transaction is deferred, so the loser's
 * CREATE TABLE fails once the winner commits — then the schema is current and the loser reports nothing applied.
 */
export function migrateSqlite(db: Db, dryRun: boolean): MigrationPlan {
  try {
    const plan = migrationPlan(appliedMigrations(db), migrations);
    if (dryRun || plan.applied.length === 0) return plan;
    const dialect = new SQLiteSyncDialect();
    try {
      dialect.migrate(drizzleMigrations(migrations), new BetterSQLiteSession(db, dialect, undefined), { migrationsFolder: '', migrationsTable: MIGRATIONS_TABLE });
    } catch (e: unknown) {
      if (appliedMigrations(db) >= migrations.length) return { ...plan, applied: [] };
      throw e;
    }
    writeMeta(db, 'schema_version', migrations.length);
    // A table rebuilt by an upgrade (0004) lost its planner statistics: taken again now, not at the writer's next
    // ANALYZE, which may be many writes away. (A new store has no rows to take them from.)
    if (plan.from > 0) refreshStatistics(db);
    // A store created now: its revisions start at its origin (revision-origin.ts), the change log empty up to there.
    // Not if another process wrote already (it migrated after this one's commit): its revisions stay as they are.
    if (plan.from === 0) {
      const origin = String(originRevision());
      const seed = db.prepare(`INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)`);
      db.transaction(() => {
        if (seed.run('revision', origin).changes > 0) seed.run('compacted_revision', origin);
      }).immediate();
    }
    return plan;
  } catch (e: unknown) {
    throw mapSqliteError(e, 'migrate');
  }
}
