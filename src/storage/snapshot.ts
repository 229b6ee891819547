// A read snapshot on one connection: what list() needs from a dialect to read the revision, count and rows consistently.
import { sql, type SQL } from 'drizzle-orm';

/** The change log's head: a list's resourceVersion, read first in its snapshot. */
export const HEAD_REVISION: SQL = sql`SELECT value FROM meta WHERE key = 'revision'`;

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
  /** The rows of `q` in chunks of up to `size`, streamed from a cursor; `return()` closes the cursor. */
  chunks(q: SQL, size: number): AsyncIterator<unknown[][], undefined>;
  /** Ends the read transaction and gives the connection back. Idempotent; never throws. */
  release(): Promise<void>;
}
