// The two schemas agree: same tables, same columns with compatible types, and the indexes listed here — checked on
// the drizzle schema files and on databases migrated from the committed migrations.
import Database from 'better-sqlite3';
import { getTableConfig as pgTable, type PgTable } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteTable, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/lib/log.js';
import { openStorage } from '../../src/storage/open.js';
import * as P from '../../src/storage/postgres/schema.js';
import * as S from '../../src/storage/sqlite/schema.js';
import { freshPostgresDatabase } from '../support/postgres.js';

const TABLES = ['resources', 'resource_labels', 'changes', 'resource_types', 'cluster_status', 'meta'] as const;

/**
 * Indexes besides primary keys, identical on both sides. Intentional differences are elsewhere: SQLite's
 * resource_labels is WITHOUT ROWID (its primary key is the only b-tree), PostgreSQL has a heap plus that key.
 */
const INDEXES: Record<string, { unique: boolean; columns: string[] }> = {
  resources_key: { unique: true, columns: ['group', 'version', 'resource', 'cluster', 'namespace', 'name'] },
  resources_namespace: { unique: false, columns: ['group', 'version', 'resource', 'namespace', 'cluster', 'name'] },
  resources_name: { unique: false, columns: ['name', 'cluster'] },
  resources_owner: { unique: false, columns: ['cluster', 'owner_uid', 'uid'] },
  resources_created: { unique: false, columns: ['group', 'version', 'resource', 'created_at'] },
};

const PRIMARY_KEYS: Record<string, string[]> = {
  resources: ['id'],
  resource_labels: ['key', 'value', 'resource_id'],
  changes: ['revision'],
  resource_types: ['cluster', 'group', 'version', 'resource'],
  cluster_status: ['cluster'],
  meta: ['key'],
};

/**
 * Compatible storage types. Intentional differences: JSON is text in SQLite and json (objects and labels, kept as
 * written, so both serve the same bytes) or jsonb (cluster status) in PostgreSQL; PostgreSQL text is COLLATE "C" so
 * it orders byte-wise like SQLite; booleans are integers in SQLite.
 */
const COMPATIBLE: Record<string, string[]> = {
  integer: ['bigint', 'bigserial', 'boolean'],
  text: ['text', 'text COLLATE "C"', 'json', 'jsonb'],
};
const JSON_COLUMNS = new Set(['resources.object', 'resources.labels', 'changes.object', 'changes.prev_labels', 'resources.fields', 'changes.prev_fields', 'cluster_status.spec', 'cluster_status.status']);

const sqliteTables: Record<string, SQLiteTable> = { resources: S.resources, resource_labels: S.resourceLabels, changes: S.changes, resource_types: S.resourceTypes, cluster_status: S.clusterStatus, meta: S.meta };
const pgTables: Record<string, PgTable> = { resources: P.resources, resource_labels: P.resourceLabels, changes: P.changes, resource_types: P.resourceTypes, cluster_status: P.clusterStatus, meta: P.meta };

describe('schemas agree', () => {
  it('same tables', () => {
    expect(Object.values(S).map((t) => sqliteTable(t as SQLiteTable).name).sort()).toEqual([...TABLES].sort());
    expect(Object.values(P).map((t) => pgTable(t as PgTable).name).sort()).toEqual([...TABLES].sort());
  });

  for (const table of TABLES) {
    it(`${table}: same columns, nullability, compatible types, primary key`, () => {
      const a = sqliteTable(sqliteTables[table] as SQLiteTable);
      const b = pgTable(pgTables[table] as PgTable);
      expect(a.columns.map((c) => [c.name, c.notNull])).toEqual(b.columns.map((c) => [c.name, c.notNull]));
      for (const [i, c] of a.columns.entries()) {
        const other = b.columns[i];
        const json = JSON_COLUMNS.has(`${table}.${c.name}`);
        expect(COMPATIBLE[c.getSQLType()], `${table}.${c.name}`).toContain(other?.getSQLType());
        expect(other?.getSQLType() === 'json' || other?.getSQLType() === 'jsonb', `${table}.${c.name} is JSON on both sides or on neither`).toBe(json);
      }
      const pk = (cols: { name: string }[]): string[] => cols.map((c) => c.name);
      const aPk = a.primaryKeys[0] ? pk(a.primaryKeys[0].columns) : pk(a.columns.filter((c) => c.primary));
      const bPk = b.primaryKeys[0] ? pk(b.primaryKeys[0].columns) : pk(b.columns.filter((c) => c.primary));
      expect(aPk).toEqual(PRIMARY_KEYS[table]);
      expect(bPk).toEqual(PRIMARY_KEYS[table]);
    });
  }

  it('the indexes of the schema files are the expected list, on both sides', () => {
    const sq = Object.fromEntries(
      Object.values(sqliteTables).flatMap((t) => sqliteTable(t).indexes.map((i) => [i.config.name, { unique: i.config.unique, columns: i.config.columns.map((c) => (c as { name: string }).name) }])),
    );
    const pg = Object.fromEntries(
      Object.values(pgTables).flatMap((t) => pgTable(t).indexes.map((i) => [i.config.name, { unique: i.config.unique, columns: i.config.columns.map((c) => (c as { name: string }).name) }])),
    );
    expect(sq).toEqual(INDEXES);
    expect(pg).toEqual(INDEXES);
  });

  it('a SQLite database migrated from the committed migrations has exactly those indexes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-schema-'));
    try {
      const s = await openStorage({ url: `sqlite:${join(dir, 'x.db')}` }, { logger: silentLogger() });
      await s.migrate();
      await s.close();
      const db = new Database(join(dir, 'x.db'), { readonly: true });
      try {
        const found: Record<string, { unique: boolean; columns: string[] }> = {};
        for (const table of TABLES) {
          for (const ix of db.prepare(`SELECT name, "unique", origin FROM pragma_index_list(?)`).all(table) as { name: string; unique: number; origin: string }[]) {
            if (ix.origin !== 'c') continue; // primary keys and UNIQUE constraints are checked above
            found[ix.name] = { unique: ix.unique === 1, columns: (db.prepare(`SELECT name FROM pragma_index_info(?) ORDER BY seqno`).all(ix.name) as { name: string }[]).map((c) => c.name) };
          }
        }
        expect(found).toEqual(INDEXES);
        const labels = db.prepare(`SELECT sql FROM sqlite_master WHERE name = 'resource_labels'`).get() as { sql: string };
        expect(labels.sql).toMatch(/WITHOUT ROWID$/);
      } finally {
        db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a PostgreSQL database migrated from the committed migrations has exactly those indexes', async () => {
    const pgdb = await freshPostgresDatabase('cp_schema');
    try {
      const s = await openStorage({ url: pgdb.url }, { logger: silentLogger() });
      await s.migrate();
      await s.close();
      const sql = postgres(pgdb.url, { max: 1, onnotice: () => {} });
      try {
        const rows = await sql<{ name: string; unique: boolean; columns: string[] }[]>`
          SELECT i.relname AS name, x.indisunique AS unique, array_agg(a.attname ORDER BY k.n) AS columns
          FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid JOIN pg_namespace ns ON ns.oid = t.relnamespace
          CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, n) JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
          WHERE ns.nspname = 'public' AND NOT x.indisprimary GROUP BY i.relname, x.indisunique`;
        expect(Object.fromEntries(rows.map((r) => [r.name, { unique: r.unique, columns: r.columns }]))).toEqual(INDEXES);
        const collations = await sql<{ c: string }[]>`SELECT DISTINCT collation_name AS c FROM information_schema.columns WHERE table_schema = 'public' AND data_type = 'text' AND table_name <> 'meta' AND column_name <> 'updated_at'`;
        expect(collations.map((r) => r.c)).toEqual(['C']);
      } finally {
        await sql.end();
      }
    } finally {
      await pgdb.drop();
    }
  });
});
