// Raw-insert baselines for the storage benchmark: the same JSON text into one table, no indexes, no bookkeeping.
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import postgres from 'postgres';

/** Produces the rows of batch `b` (JSON text of each object) — generated outside the timed part. */
export type TextBatches = (b: number) => string[] | undefined;

/**
 * better-sqlite3: one table, one prepared INSERT, one transaction; WAL and NORMAL as the storage, but 16 KiB pages,
 * which suit a bare table of 4 KB texts best (53k rows/s against 31k with the storage's 4 KiB: the higher ceiling is
 * the one we compare to). With `stringify`, the batches hold objects and JSON.stringify runs inside the timed part, as it
 * must in write(), which receives objects.
 */
export function rawSqlite(file: string, batches: (b: number) => unknown[] | undefined, stringify = false): { rows: number; seconds: number } {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
  const db = new Database(file);
  db.pragma('page_size = 16384');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE raw (id INTEGER PRIMARY KEY, object TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO raw (object) VALUES (?)');
  let rows = 0;
  let ms = 0;
  db.exec('BEGIN');
  for (let b = 0; ; b++) {
    const items = batches(b);
    if (!items) break;
    const t0 = performance.now();
    for (const t of items) insert.run(stringify ? JSON.stringify(t) : (t as string));
    ms += performance.now() - t0;
    rows += items.length;
  }
  const t0 = performance.now();
  db.exec('COMMIT');
  ms += performance.now() - t0;
  db.close();
  for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
  return { rows, seconds: ms / 1000 };
}

/** PostgreSQL: multi-row INSERT of 1000 rows per statement, one connection, into (id bigserial, object jsonb). */
export async function rawPostgresInsert(url: string, batches: TextBatches): Promise<{ rows: number; seconds: number }> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe('DROP TABLE IF EXISTS raw; CREATE TABLE raw (id bigserial PRIMARY KEY, object jsonb NOT NULL)');
    let rows = 0;
    let ms = 0;
    for (let b = 0; ; b++) {
      const texts = batches(b);
      if (!texts) break;
      const values = texts.map((_, i) => `($${i + 1}::text::jsonb)`).join(', ');
      const t0 = performance.now();
      await sql.unsafe(`INSERT INTO raw (object) VALUES ${values}`, texts);
      ms += performance.now() - t0;
      rows += texts.length;
    }
    await sql.unsafe('DROP TABLE raw');
    return { rows, seconds: ms / 1000 };
  } finally {
    await sql.end();
  }
}

/** PostgreSQL: COPY … FROM STDIN (text format) of the same rows. */
export async function rawPostgresCopy(url: string, batches: TextBatches): Promise<{ rows: number; seconds: number }> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe('DROP TABLE IF EXISTS raw; CREATE TABLE raw (id bigserial PRIMARY KEY, object jsonb NOT NULL)');
    const escape = (s: string): string => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
    let rows = 0;
    let ms = 0;
    for (let b = 0; ; b++) {
      const texts = batches(b);
      if (!texts) break;
      const lines = texts.map((t) => `${escape(t)}\n`);
      const t0 = performance.now();
      const writable = await sql`COPY raw (object) FROM STDIN`.writable();
      await pipeline(Readable.from(lines), writable);
      ms += performance.now() - t0;
      rows += texts.length;
    }
    await sql.unsafe('DROP TABLE raw');
    return { rows, seconds: ms / 1000 };
  } finally {
    await sql.end();
  }
}
