// Transactions on a reserved connection, written so a connection that died is never written to again.
import type postgres from 'postgres';
import type { Pg } from './connection.js';
import { deadline } from '../../lib/lifecycle.js';
import { CONNECTION_CODES, SESSION_ENDED_CODES } from './errors.js';

/** What statements of a transaction run on. */
export type Tx = Pick<postgres.Sql, 'unsafe'>;

export type Rows = postgres.RowList<postgres.Row[]>;

/**
 * Sends `text` now, behind whatever this transaction sent before: postgres.js sends a query only when something asks
 * for its result, so statements meant to be pipelined (sent together, answered in one round trip) are started in
 * the order they must run. Prepared — described once per connection instead of before each run, a round trip that
 * would also hold back the statements behind it: only for statements whose text is one of a few fixed shapes.
 * Statements sent together are awaited with Promise.all: the first failure is the one reported, the others fail
 * because it did (the transaction is aborted), in order.
 */
export function send(tx: Tx, text: string, params: postgres.ParameterOrJSON<never>[] = []): Promise<Rows> {
  return tx.unsafe(text, params, { prepare: true }).execute();
}

/**
 * True when `e` means the connection itself is gone (socket closed, server shut the session down). postgres.js
 * 3.4.9 crashes the process (TypeError in nextWrite, porsager/postgres#1154, #1208) if anything is then written
 * to that connection: its own ROLLBACK in sql.begin(), or any query after a reserved connection is released.
 */
export function connectionLost(e: unknown): boolean {
  const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
  return typeof code === 'string' && (CONNECTION_CODES.has(code) || /^08/.test(code) || SESSION_ENDED_CODES.has(code));
}

/** How long a reserve() may wait for a connection, milliseconds: the pool's connect timeout. */
export const RESERVE_TIMEOUT_MS = 10_000;

/**
 * pool.reserve(), bounded. postgres.js 3.4.9 can lose a reserve request when connections close and reconnect around
 * it (PostgreSQL restarting): its promise then never settles, and a caller without a timeout — the change-log
 * compactor, so the whole shutdown — waits forever. Past `timeoutMs` this fails as CONNECT_TIMEOUT (Unavailable,
 * retryable); a connection that still arrives later is handed back to the pool.
 */
export async function reserveConnection(pool: Pick<Pg, 'reserve'>, timeoutMs = RESERVE_TIMEOUT_MS): Promise<postgres.ReservedSql> {
  const pending = pool.reserve();
  try {
    return await deadline(pending, timeoutMs, () => Object.assign(new Error(`no database connection within ${timeoutMs} ms`), { code: 'CONNECT_TIMEOUT' }));
  } catch (e: unknown) {
    // A connection that arrives after we gave up is fresh (just connected): releasing it is safe.
    pending.then((c) => c.release(), () => undefined);
    throw e;
  }
}

/**
 * How long a transaction of ours may sit idle before the server ends it (`idle_in_transaction_session_timeout`, set
 * for the transaction only). A writer that stopped mid-transaction — its process frozen, its host gone without a word
 * — would otherwise keep the write lock, and every other writer waiting (a new synchro leader included), until the
 * server's TCP keepalive found the connection dead: two hours by the operating systems' default. Between two of our
 * statements a transaction waits for a turn of the event loop, not for a minute.
 */
export const TRANSACTION_IDLE_TIMEOUT_MS = 60_000;

/** `begin` (a BEGIN statement) with the transaction's idle timeout, as one simple query: one round trip. */
export function beginBounded(begin: string, idleTimeoutMs: number): string {
  return `${begin}; SET LOCAL idle_in_transaction_session_timeout = ${Math.max(1, Math.round(idleTimeoutMs))}`;
}

/**
 * Runs `fn` in a transaction (`begin` is the BEGIN statement, sent with the idle timeout: beginBounded). Instead of
 * sql.begin(), which sends ROLLBACK on any failure: after a lost connection nothing more is sent and the connection
 * is not released — postgres.js has already put it back in its closed queue, from where it reconnects; releasing it
 * would move it, socketless, to the open queue.
 */
export async function inTransaction<T>(pool: Pg, fn: (tx: Tx) => Promise<T>, begin = 'BEGIN', idleTimeoutMs = TRANSACTION_IDLE_TIMEOUT_MS): Promise<T> {
  const conn = await reserveConnection(pool);
  let lost = false;
  // No round trip of its own: fn's first statements go out behind it. (Should it fail, they fail too, in order.)
  const begun = conn.unsafe(beginBounded(begin, idleTimeoutMs)).execute();
  begun.catch(() => undefined);
  try {
    const result = await fn(conn);
    await begun;
    await conn.unsafe('COMMIT');
    return result;
  } catch (e: unknown) {
    lost = connectionLost(e);
    if (!lost) {
      try {
        await conn.unsafe('ROLLBACK');
      } catch (r: unknown) {
        lost = connectionLost(r);
      }
    }
    throw e;
  } finally {
    if (!lost) conn.release();
  }
}
