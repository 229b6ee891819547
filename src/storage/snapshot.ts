// A read snapshot on one connection: what list() needs from a dialect to read the revision, count and rows consistently.
import { sql, type SQL } from 'drizzle-orm';
import { StorageError } from './errors.js';

/** The change log's head: a list's resourceVersion, read first in its snapshot. */
export const HEAD_REVISION: SQL = sql`SELECT value FROM meta WHERE key = 'revision'`;

/**
 * The value HEAD_REVISION read (the first column of its first row). Every migrated store has one, so none means its
 * tables were emptied under the read: a restore in progress (PostgreSQL's TRUNCATE is not MVCC-safe, so a statement
 * whose snapshot was taken before one commits sees the tables empty; a list's snapshot locks the tables first and
 * waits instead, postgres/snapshot.ts). Answering revision 0 would tell clients "any state": a watch from it sends
 * everything again as ADDED. Storage is reported unavailable for a moment instead (503; clients retry).
 */
export function headRevisionOf(value: unknown): string {
  if (value === undefined || value === null) {
    throw new StorageError('Unavailable', 'storage holds no revision: its tables are being restored or were emptied; try again', true);
  }
  return String(value);
}

/**
 * What a list reads first on its snapshot, in order — statements read whole (Snapshot.all: a count, a page), then the
 * first chunk of a cursor (Snapshot.chunks) — so that a backend whose snapshot costs a round trip to begin can send
 * them along (PostgreSQL). The list then asks for them with the same `q` objects, as it would have.
 */
export interface FirstRead {
  all: { q: SQL; bytesColumn?: number }[];
  cursor?: { q: SQL; size: number; bytesColumn?: number };
}

export interface Snapshot {
  /**
   * HEAD_REVISION as read when the snapshot opened, where the backend sends it with the BEGIN in one round trip
   * (PostgreSQL); undefined where a read costs no round trip (SQLite), and list() reads it then.
   */
  readonly revision?: string;
  /**
   * Every row of `q`, each an array of column values in SELECT order. Column `bytesColumn`, when given, comes as a
   * Buffer of its UTF-8 text where the driver can hand it over undecoded (PostgreSQL; SQLite's SQL asks for a blob).
   */
  all(q: SQL, bytesColumn?: number): Promise<unknown[][]>;
  /**
   * The rows of `q` in chunks of up to `size`, streamed from a cursor; `return()` closes the cursor. Column
   * `firstBytesColumn`, when given, comes as a Buffer in the first chunk only, where the driver hands over a text
   * column undecoded without another statement (PostgreSQL); later chunks come as text, which each write frees.
   */
  chunks(q: SQL, size: number, firstBytesColumn?: number): AsyncIterator<unknown[][], undefined>;
  /**
   * Ends the read transaction and gives the connection back (PostgreSQL: sends the COMMIT and gives the connection
   * back when it is done, without waiting for it). Idempotent; never throws.
   */
  release(): Promise<void>;
}
