// A read snapshot on a reserved PostgreSQL connection: REPEATABLE READ READ ONLY, so revision, count and rows agree.
import type { SQL } from 'drizzle-orm';
import type postgres from 'postgres';
import type { Snapshot } from '../snapshot.js';
import type { Pg } from './connection.js';
import { mapPostgresError } from './errors.js';
import { postgresQuery } from './query.js';
import { connectionLost, reserveConnection } from './transaction.js';

type Param = postgres.ParameterOrJSON<never>;

/** Reserved connection of one list; after a lost connection nothing is written to it again (see transaction.ts). */
export class PgSnapshot implements Snapshot {
  private done = false;
  private lost = false;

  private constructor(private readonly conn: postgres.ReservedSql) {}

  static async open(pool: Pg): Promise<PgSnapshot> {
    let conn: postgres.ReservedSql | undefined;
    try {
      conn = await reserveConnection(pool);
      await conn.unsafe('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      return new PgSnapshot(conn);
    } catch (e: unknown) {
      if (!connectionLost(e)) conn?.release();
      throw mapPostgresError(e, 'list');
    }
  }

  async all(q: SQL): Promise<unknown[][]> {
    const r = postgresQuery.render(q);
    try {
      // Unprepared: list filters vary, and postgres.js would keep every shape prepared on every connection.
      return (await this.conn.unsafe(r.sql, r.params as Param[], { prepare: false }).values()) as unknown[][];
    } catch (e: unknown) {
      this.lost ||= connectionLost(e);
      throw mapPostgresError(e, 'list');
    }
  }

  chunks(q: SQL, size: number): AsyncIterator<unknown[][], undefined> {
    const r = postgresQuery.render(q);
    const it = this.conn.unsafe(r.sql, r.params as Param[], { prepare: false }).values().cursor(size)[Symbol.asyncIterator]();
    return {
      next: async (): Promise<IteratorResult<unknown[][], undefined>> => {
        try {
          const n = await it.next();
          return n.done ? { done: true, value: undefined } : { done: false, value: n.value as unknown[][] };
        } catch (e: unknown) {
          this.lost ||= connectionLost(e);
          throw mapPostgresError(e, 'list');
        }
      },
      return: async (): Promise<IteratorResult<unknown[][], undefined>> => {
        if (this.lost) return { done: true, value: undefined };
        try {
          await it.return?.();
        } catch (e: unknown) {
          this.lost ||= connectionLost(e);
        }
        return { done: true, value: undefined };
      },
    };
  }

  async release(): Promise<void> {
    if (this.done) return;
    this.done = true;
    if (this.lost) return; // postgres.js already took the dead connection back (see transaction.ts)
    try {
      await this.conn.unsafe('COMMIT');
    } catch (e: unknown) {
      // nothing to lose in a read-only transaction
      if (connectionLost(e)) return;
    }
    this.conn.release();
  }
}
