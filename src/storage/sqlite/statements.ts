// Drizzle SQL run on a connection through its cache of prepared statements.
import type { Statement } from 'better-sqlite3';
import type { SQL } from 'drizzle-orm';
import type { Db } from './connection.js';
import { prepare } from './prepare.js';
import { sqliteQuery } from './query.js';

/** A drizzle SQL prepared on `db`, with its parameters. */
export function prepareSql(db: Db, q: SQL): { st: Statement; params: unknown[] } {
  const r = sqliteQuery.render(q);
  return { st: prepare(db, r.sql), params: r.params };
}

/** Every row of a SELECT as arrays. */
export function allRows(db: Db, q: SQL): unknown[][] {
  const { st, params } = prepareSql(db, q);
  return st.raw(true).all(...params) as unknown[][];
}
