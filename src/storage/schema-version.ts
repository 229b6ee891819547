// Schema versions: embedded drizzle-kit migrations fed to drizzle's migrator, and the refusal of a newer schema.
import { createHash } from 'node:crypto';
import type { MigrationMeta } from 'drizzle-orm/migrator';
import { StorageError } from './errors.js';
import type { MigrationPlan } from './types.js';

/**
 * One drizzle-kit migration as embedded in the bundle (src/storage/<dialect>/embedded-migrations.ts is generated
 * from src/storage/<dialect>/migrations/, so the single-file bundle needs no folder next to it).
 */
export interface EmbeddedMigration {
  /** e.g. "0000_init". */
  tag: string;
  /** The journal's `when`: drizzle's migrator applies the migrations newer than the last one recorded. */
  when: number;
  breakpoints: boolean;
  /** The .sql file as drizzle-kit wrote it. */
  sql: string;
}

/** What drizzle's readMigrationFiles() would have produced from the folder (same split, same hash). */
export function drizzleMigrations(ms: readonly EmbeddedMigration[]): MigrationMeta[] {
  return ms.map((m) => ({
    sql: m.sql.split('--> statement-breakpoint'),
    bps: m.breakpoints,
    folderMillis: m.when,
    hash: createHash('sha256').update(m.sql).digest('hex'),
  }));
}

/**
 * The plan from `applied` migrations (rows of drizzle's migrations table) to the ones this binary knows. A
 * database that has more than we know was migrated by a newer clusterpedia: refuse rather than misread it.
 */
export function migrationPlan(applied: number, known: readonly EmbeddedMigration[]): MigrationPlan {
  if (applied > known.length) {
    throw new StorageError(
      'SchemaMismatch',
      `database schema version ${applied} is newer than this clusterpedia (knows up to ${known.length}); upgrade clusterpedia`,
      false,
    );
  }
  return { from: applied, to: known.length, applied: known.slice(applied).map((m) => m.tag) };
}

/** "schema version 0 → 1: 0000_init" or "schema is up to date (version 1)". */
export function describePlan(plan: MigrationPlan, dryRun = false): string {
  if (plan.applied.length === 0) return `schema is up to date (version ${plan.to})`;
  return `${dryRun ? 'would migrate ' : ''}schema version ${plan.from} → ${plan.to}: ${plan.applied.join(', ')}`;
}
