// A read snapshot on a pooled SQLite connection: a deferred transaction whose first read pins the WAL snapshot.
import { setImmediate } from 'node:timers/promises';
import type { SQL } from 'drizzle-orm';
import type { Snapshot } from '../snapshot.js';
import type { Db, ReadPool } from './connection.js';
import { mapSqliteError } from './errors.js';
import { allRows, prepareSql } from './statements.js';

export class SqliteSnapshot implements Snapshot {
  private done = false;

  private constructor(
    private readonly pool: ReadPool,
    private readonly db: Db,
  ) {}

  static async open(pool: ReadPool): Promise<SqliteSnapshot> {
    const db = await pool.acquire();
    try {
      db.exec('BEGIN');
    } catch (e: unknown) {
      pool.release(db);
      throw mapSqliteError(e, 'list');
    }
    return new SqliteSnapshot(pool, db);
  }

  async all(q: SQL): Promise<unknown[][]> {
    try {
      return allRows(this.db, q);
    } catch (e: unknown) {
      throw mapSqliteError(e, 'list');
    }
  }

  chunks(q: SQL, size: number): AsyncIterator<unknown[][], undefined> {
    let it: IterableIterator<unknown[]>;
    try {
      const { st, params } = prepareSql(this.db, q);
      it = st.raw(true).iterate(...params) as IterableIterator<unknown[]>;
    } catch (e: unknown) {
      throw mapSqliteError(e, 'list');
    }
    let first = true;
    return {
      next: async (): Promise<IteratorResult<unknown[][], undefined>> => {
        // better-sqlite3 is synchronous: give the event loop a turn between chunks of a long list.
        if (!first) await setImmediate();
        first = false;
        const chunk: unknown[][] = [];
        try {
          while (chunk.length < size) {
            const r = it.next();
            if (r.done) break;
            chunk.push(r.value);
          }
        } catch (e: unknown) {
          throw mapSqliteError(e, 'list');
        }
        return chunk.length === 0 ? { done: true, value: undefined } : { done: false, value: chunk };
      },
      return: async (): Promise<IteratorResult<unknown[][], undefined>> => {
        it.return?.();
        return { done: true, value: undefined };
      },
    };
  }

  async release(): Promise<void> {
    if (this.done) return;
    this.done = true;
    try {
      if (this.db.inTransaction) this.db.exec('COMMIT');
    } catch {
      // a read transaction has nothing to lose; the pool rolls back whatever is left
    }
    this.pool.release(this.db);
  }
}
