// A backup of a clusterpedia database and its restore in place, while clusterpedia keeps its connections: what a
// restore from a backup, or a failover to a replica that had not received the last commits, looks like to it.
import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import postgres from 'postgres';

/** Every table of the schema (the change log, statuses and leases included), parents before children. */
const TABLES = ['meta', 'resource_types', 'resources', 'resource_labels', 'changes', 'cluster_status'];

/** Copies the SQLite database at `url` (sqlite:<path>) to a file beside it; the function returned puts it back. */
export async function backupSqlite(url: string): Promise<() => Promise<void>> {
  const path = url.slice('sqlite:'.length);
  const copy = `${path}.backup`;
  rmSync(copy, { force: true });
  const db = new Database(path);
  db.pragma('busy_timeout = 10000');
  db.prepare('VACUUM INTO ?').run(copy);
  db.close();
  return async () => {
    const w = new Database(path);
    try {
      w.pragma('busy_timeout = 10000');
      w.pragma('foreign_keys = OFF');
      w.prepare('ATTACH DATABASE ? AS b').run(copy);
      w.transaction(() => {
        for (const t of [...TABLES].reverse()) w.exec(`DELETE FROM main."${t}"`);
        for (const t of TABLES) w.exec(`INSERT INTO main."${t}" SELECT * FROM b."${t}"`);
      }).immediate();
    } finally {
      w.close();
    }
  };
}

/** Copies the PostgreSQL database's tables to a schema `backup`; the function returned puts them back. */
export async function backupPostgres(url: string): Promise<() => Promise<void>> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    // One snapshot for every table, as pg_dump takes, while clusterpedia writes.
    await sql.begin('isolation level repeatable read', async (tx) => {
      await tx.unsafe('DROP SCHEMA IF EXISTS backup CASCADE');
      await tx.unsafe('CREATE SCHEMA backup');
      for (const t of TABLES) await tx.unsafe(`CREATE TABLE backup."${t}" AS TABLE public."${t}"`);
    });
  } finally {
    await sql.end();
  }
  return async () => {
    const w = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await w.begin(async (tx) => {
        await tx.unsafe(`TRUNCATE ${TABLES.map((t) => `public."${t}"`).join(', ')}`);
        for (const t of TABLES) await tx.unsafe(`INSERT INTO public."${t}" SELECT * FROM backup."${t}"`);
      });
    } finally {
      await w.end();
    }
  };
}
