// A read snapshot on one connection: what list() needs from a dialect to read the revision, count and rows consistently.
import type { SQL } from 'drizzle-orm';

export interface Snapshot {
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
