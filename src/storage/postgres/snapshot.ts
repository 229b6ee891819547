// A read snapshot on a reserved PostgreSQL connection: REPEATABLE READ READ ONLY, so revision, count and rows agree.
import type { SQL } from 'drizzle-orm';
import type postgres from 'postgres';
import { HEAD_REVISION, headRevisionOf, type FirstRead, type Snapshot } from '../snapshot.js';
import type { Pg } from './connection.js';
import { mapPostgresError } from './errors.js';
import { unprepared } from './literals.js';
import { postgresQuery } from './query.js';
import { beginBounded, connectionLost, reserveConnection } from './transaction.js';

/**
 * Taken before the snapshot (a LOCK takes none; the first SELECT does), in the order a TRUNCATE of every table takes
 * them. TRUNCATE is not MVCC-safe: a snapshot taken before one commits sees the tables it emptied as empty, so a list
 * whose snapshot began before a TRUNCATE-and-reload restore committed, or that read the head revision before one
 * emptied `resources`, answered short at a valid revision. Holding these, a list that begins during such a restore
 * waits for it and reads what it restored, and a restore waits for the lists already reading.
 */
const LOCK_READ_TABLES = 'LOCK TABLE meta, resources, resource_labels IN ACCESS SHARE MODE';

/**
 * A list's transaction left idle this long is ended by the server (idle_in_transaction_session_timeout, set for it
 * only). One whose apiserver vanished without a word would otherwise keep its locks — a migration's, a restore's
 * TRUNCATE waiting behind them, and every query queued behind those — and hold back vacuum until the server's TCP
 * keepalive found it dead, two hours by default. A streamed list is idle only while a client drains its last rows,
 * and --request-timeout (1 min) ends the request before this.
 */
export const SNAPSHOT_IDLE_TIMEOUT_MS = 5 * 60_000;

/**
 * A statement's rows as arrays of values; column `bytesColumn`, when given, as the bytes received. Read raw, every
 * column is a view of the bytes received, so the objects skip the UTF-8 decode and the garbage of 2 MB of strings per
 * page (a 500-pod page: ~7 ms of GC); only the small columns are decoded. All of them are text or bigint, which
 * .values() would have given as the same strings.
 */
function rowsOf(query: postgres.PendingQuery<postgres.Row[]>, bytesColumn: number | undefined): Promise<unknown[][]> {
  // Sent now, so statements go out in the order they were asked for (postgres.js sends one when something first
  // awaits it otherwise).
  if (bytesColumn === undefined) return query.values().execute() as unknown as Promise<unknown[][]>;
  return textBesides(query.raw().execute() as unknown as Promise<(Buffer | null)[][]>, bytesColumn);
}

async function textBesides(raw: Promise<(Buffer | null)[][]>, bytesColumn: number): Promise<unknown[][]> {
  const rows = await raw;
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      const v = row[i];
      if (i !== bytesColumn && v) (row as unknown[])[i] = v.toString('utf8');
    }
  }
  return rows;
}

/** Reserved connection of one list; after a lost connection nothing is written to it again (see transaction.ts). */
export class PgSnapshot implements Snapshot {
  private done = false;
  private lost = false;
  /** Cursors declared so far: each gets its own name (a chained list declares one per cluster). */
  private cursors = 0;

  private constructor(
    private readonly conn: postgres.ReservedSql,
    readonly revision: string,
    /** The list's first reads, sent with the BEGIN (open's `first`), until they are taken. */
    private readonly sent: SentFirst | undefined,
  ) {
    if (sent?.cursor) this.cursors = 1;
  }

  /**
   * BEGIN and the head revision go out together and come back in one round trip (postgres.js pipelines what is sent
   * on a connection before the answers arrive): each round trip here costs a write and a wake-up on both sides. So
   * does `first`, the list's first read, when it is known: the page, or a cursor's DECLARE and first FETCH. A list
   * then waits on one round trip, where it waited on two (across a network, a round-trip time per list).
   */
  static async open(pool: Pg, o: { idleTimeoutMs?: number; first?: FirstRead } = {}): Promise<PgSnapshot> {
    const head = postgresQuery.render(HEAD_REVISION);
    for (let attempt = 1; ; attempt++) {
      let conn: postgres.ReservedSql | undefined;
      let begun = false;
      try {
        conn = await reserveConnection(pool);
        // Each sent as it is made, in this order. Without parameters, so none is described first (see chunks()).
        const begin = conn.unsafe(beginBounded('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', o.idleTimeoutMs ?? SNAPSHOT_IDLE_TIMEOUT_MS)).execute();
        const lock = conn.unsafe(LOCK_READ_TABLES, [], { prepare: false }).execute();
        const rows = conn.unsafe(head.sql, [], { prepare: false }).values().execute();
        const first = o.first ? sendFirst(conn, o.first) : undefined;
        // All settle whatever happens: a later one's failure must not go unhandled when an earlier one's is thrown.
        const [b, l, r] = await Promise.allSettled([begin, lock, rows]);
        if (b.status === 'rejected') throw b.reason;
        begun = true;
        if (l.status === 'rejected') throw l.reason;
        if (r.status === 'rejected') throw r.reason;
        return new PgSnapshot(conn, headRevisionOf((r.value as unknown[][])[0]?.[0]), first);
      } catch (e: unknown) {
        let lost = connectionLost(e);
        // A transaction the failed read left aborted must not go back to the pool with the connection.
        if (begun && !lost) {
          try {
            await conn?.unsafe('ROLLBACK');
          } catch (r: unknown) {
            lost = connectionLost(r);
          }
        }
        if (!lost) conn?.release();
        // After a connection was killed (a server restart, pg_terminate_backend), postgres.js answers the next
        // reserve once more with that connection's error; a second try gets a new connection. Nothing had started.
        if (!lost || attempt >= 2) throw mapPostgresError(e, 'list');
      }
    }
  }

  /** The answer to `q`, if it went out with the snapshot's start (open's `first`) as asked now: taken once. */
  private takeSent(q: SQL, bytesColumn: number | undefined): Promise<unknown[][]> | undefined {
    const i = this.sent?.all.findIndex((a) => a.q === q && a.bytesColumn === bytesColumn) ?? -1;
    if (i < 0) return undefined;
    return this.sent?.all.splice(i, 1)[0]?.rows;
  }

  /** The cursor over `q` declared with the snapshot's start, if it was, as asked now: taken once. */
  private takeSentCursor(q: SQL, size: number, bytesColumn: number | undefined): SentCursor | undefined {
    const c = this.sent?.cursor;
    if (!c || c.q !== q || c.size !== size || c.bytesColumn !== bytesColumn) return undefined;
    if (this.sent) this.sent.cursor = undefined;
    return c;
  }

  async all(q: SQL, bytesColumn?: number): Promise<unknown[][]> {
    try {
      return await (this.takeSent(q, bytesColumn) ?? rowsOf(unprepared(this.conn, q).query, bytesColumn));
    } catch (e: unknown) {
      this.lost ||= connectionLost(e);
      throw mapPostgresError(e, 'list');
    }
  }

  /**
   * A server-side cursor (DECLARE … CURSOR, then FETCH): PostgreSQL plans it for its first rows (cursor_tuple_fraction).
   * A protocol-level cursor (postgres.js `.cursor()`) is planned for the whole result: for one cluster's 10,000 pods
   * in key order that was a sort of 47 MB spilled to disk before the first row (420 ms), against ~7 ms this way.
   */
  chunks(q: SQL, size: number, firstBytesColumn?: number): AsyncIterator<unknown[][], undefined> {
    const n = fetchSize(size);
    const sent = this.takeSentCursor(q, n, firstBytesColumn);
    const name = sent ? sent.name : cursorName(++this.cursors);
    // 'drained': the last FETCH came back short, so the cursor is at its end and only needs closing.
    let state: 'new' | 'open' | 'drained' | 'closed' = 'new';
    const fail = (e: unknown): never => {
      this.lost ||= connectionLost(e);
      state = 'closed';
      throw mapPostgresError(e, 'list');
    };
    return {
      next: async (): Promise<IteratorResult<unknown[][], undefined>> => {
        if (state === 'closed') return { done: true, value: undefined };
        try {
          let rows: unknown[][] = [];
          if (state === 'new') {
            const started = sent ?? startCursor(this.conn, q, name, n, firstBytesColumn);
            if (started) {
              // One round trip (with the BEGIN, when it was sent with it): the FETCH runs once the DECLARE did; if
              // that failed, its error is the one to report.
              const [d, f] = await Promise.allSettled([started.declared, started.fetched]);
              if (d.status === 'rejected') throw d.reason;
              if (f.status === 'rejected') throw f.reason;
              rows = f.value;
            } else {
              // postgres.js describes a statement with parameters first, then executes it; a FETCH sent meanwhile
              // would run before the cursor exists.
              await unprepared(this.conn, q, `DECLARE ${name} NO SCROLL CURSOR FOR `).query;
              rows = await this.fetch(name, n, firstBytesColumn);
            }
            state = 'open';
          } else if (state === 'open') rows = await this.fetch(name, n, firstBytesColumn);
          firstBytesColumn = undefined;
          if (rows.length === 0) {
            // A cursor at its end is left to COMMIT, which closes it: a CLOSE would be one more round trip.
            state = 'closed';
            return { done: true, value: undefined };
          }
          if (rows.length < n) state = 'drained';
          return { done: false, value: rows };
        } catch (e: unknown) {
          return fail(e);
        }
      },
      return: async (): Promise<IteratorResult<unknown[][], undefined>> => {
        // Only a cursor left with rows to read holds anything worth freeing before the transaction ends.
        const wasOpen = state === 'open';
        state = 'closed';
        if (wasOpen && !this.lost) {
          try {
            await this.close(name);
          } catch (e: unknown) {
            this.lost ||= connectionLost(e);
          }
        }
        return { done: true, value: undefined };
      },
    };
  }

  private fetch(name: string, n: number, bytesColumn: number | undefined): Promise<unknown[][]> {
    return fetchRows(this.conn, name, n, bytesColumn);
  }

  private async close(name: string): Promise<void> {
    await this.conn.unsafe(`CLOSE ${name}`, [], { prepare: false });
  }

  /**
   * Sends COMMIT and gives the connection back once it is done, without waiting for it: the rows are read, and the
   * caller serving them need not wait a round trip for a read-only transaction to end. Whatever is sent on the
   * connection after it runs after it.
   */
  release(): Promise<void> {
    if (this.done || this.lost) {
      // postgres.js already took a dead connection back (see transaction.ts)
      this.done = true;
      return Promise.resolve();
    }
    this.done = true;
    this.conn.unsafe('COMMIT').execute().then(
      () => this.conn.release(),
      // nothing to lose in a read-only transaction
      (e: unknown) => {
        if (!connectionLost(e)) this.conn.release();
      },
    );
    return Promise.resolve();
  }
}

/** The rows a FETCH asks for: a whole number, one at least. */
function fetchSize(size: number): number {
  return Math.max(1, Math.floor(size));
}

/** The name of a snapshot's `n`th cursor (they close with its transaction). */
function cursorName(n: number): string {
  return `list_${n}`;
}

/** A cursor's next `n` rows (see rowsOf for `bytesColumn`). */
function fetchRows(conn: postgres.ReservedSql, name: string, n: number, bytesColumn: number | undefined): Promise<unknown[][]> {
  return rowsOf(conn.unsafe(`FETCH ${n} FROM ${name}`, [], { prepare: false }), bytesColumn);
}

/** A cursor's DECLARE and first FETCH, sent one behind the other. */
interface StartedCursor {
  declared: Promise<unknown>;
  fetched: Promise<unknown[][]>;
}

/**
 * Sends a cursor's DECLARE and its first FETCH now; undefined, sending nothing, when the statement's parameters
 * cannot be written in (postgres.js would describe it first, and the FETCH would run before the cursor exists).
 */
function startCursor(conn: postgres.ReservedSql, q: SQL, name: string, n: number, bytesColumn: number | undefined): StartedCursor | undefined {
  const declare = unprepared(conn, q, `DECLARE ${name} NO SCROLL CURSOR FOR `);
  if (declare.described) return undefined;
  const declared: Promise<unknown> = declare.query.execute();
  return { declared, fetched: fetchRows(conn, name, n, bytesColumn) };
}

/** A cursor declared with the BEGIN (open's `first`), as it was asked for. */
interface SentCursor extends StartedCursor {
  q: SQL;
  size: number;
  bytesColumn: number | undefined;
  name: string;
}

/** First reads sent with the BEGIN, their answers pending. */
interface SentFirst {
  all: { q: SQL; bytesColumn: number | undefined; rows: Promise<unknown[][]> }[];
  cursor: SentCursor | undefined;
}

/**
 * Sends `first` on `conn` now, in order, as far as it can: nothing from a statement whose parameters cannot be
 * written in on (see startCursor). The answers are read when the list asks for them, or never (a list that fails or
 * is abandoned first): a failure is theirs to report, so none goes unhandled meanwhile.
 */
function sendFirst(conn: postgres.ReservedSql, first: FirstRead): SentFirst {
  const quiet = <T>(p: Promise<T>): Promise<T> => {
    p.catch(() => undefined);
    return p;
  };
  const sent: SentFirst = { all: [], cursor: undefined };
  for (const a of first.all) {
    const st = unprepared(conn, a.q);
    if (st.described) return sent;
    sent.all.push({ q: a.q, bytesColumn: a.bytesColumn, rows: quiet(rowsOf(st.query, a.bytesColumn)) });
  }
  const c = first.cursor;
  if (!c) return sent;
  // The snapshot's first cursor (see its constructor).
  const name = cursorName(1);
  const size = fetchSize(c.size);
  const started = startCursor(conn, c.q, name, size, c.bytesColumn);
  if (started) sent.cursor = { q: c.q, size, bytesColumn: c.bytesColumn, name, declared: quiet(started.declared), fetched: quiet(started.fetched) };
  return sent;
}
