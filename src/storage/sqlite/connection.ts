// better-sqlite3 connections: one writer, a small pool of readers (a streamed list holds its own connection).
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Db = Database.Database;

/** WAL bytes after which the writer checkpoints (while checkpoints run on a worker, a backstop at four times this). */
export const WAL_CHECKPOINT_BYTES = 64 * 1024 * 1024;

/** How long a connection waits for another process's write lock before SQLITE_BUSY, milliseconds. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/**
 * Opens a connection with the pragmas every connection needs. WAL lets readers keep their snapshot while the writer
 * commits; synchronous=NORMAL in WAL loses at most the last transactions on power loss, never consistency — the
 * synchro relists what it cannot find anyway.
 */
/** SQLite's automatic checkpoint at `bytes` of WAL, counted in pages of this file's size. */
export function setWalAutocheckpoint(db: Db, bytes: number): void {
  const pageSize = Number(db.pragma('page_size', { simple: true }));
  db.pragma(`wal_autocheckpoint = ${Math.round(bytes / pageSize)}`);
}

/** Page cache of each kind of connection, KiB (SQLite allocates it as pages are read, up to this). */
const CACHE_KIB = { writer: 8_000, reader: 32_000, main: 4_000 } as const;

/**
 * Opens a connection: `writer` is the writer thread's; `main` is the event loop's own, which creates the file and
 * migrates it (so it sets the file-wide pragmas too) but otherwise only reads; `reader` is a pooled snapshot reader.
 */
export function openConnection(path: string, busyTimeoutMs: number, kind: 'writer' | 'main' | 'reader'): Db {
  const writer = kind !== 'reader';
  const db = new Database(path);
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  if (writer) {
    // 4 KiB pages (SQLite's default). A commit writes each page it dirtied whole to the WAL, and at a million rows a
    // batch dirties about one leaf page per row in every index the member's order does not follow (name, owner,
    // creation time, labels): 16 KiB pages moved four times the bytes for the same entries. A 4 KB object then
    // overflows into a page of its own, so narrow scans (versions, counts) read only the start of each row. At
    // 1.01 M objects (BENCHMARKS.md, Synchro) 4 KiB gave a 13-22 % faster initial sync and kept up with the churn
    // that 16 KiB fell behind. Only takes effect when the file is created; existing files keep theirs.
    db.pragma('page_size = 4096');
    db.pragma('journal_mode = WAL');
    // Checkpoint (copy the WAL into the file and fsync) every 64 MB of WAL rather than SQLite's 1000 pages: a batch
    // of a relist dirties thousands of index pages, and checkpointing after every commit cost ~20% of ingest. In
    // pages of this file's size (a file created with 16 KiB pages keeps them).
    setWalAutocheckpoint(db, WAL_CHECKPOINT_BYTES);
  }
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = OFF'); // no foreign keys: the writer maintains labels and changes itself
  db.pragma('temp_store = MEMORY');
  // Page cache per connection: 32 MB for readers (list pages); 8 MB for the writer thread's, the synchro's largest
  // native allocation — at 1 M objects the writer touches a random leaf per index per row, which no cache of this size
  // holds, while the upper levels of the B-trees fit in far less (32 -> 16 MB took the peak RSS from 311 to 293 MB at
  // the same sync rate; 16 -> 8 MB went with the smaller write queue, BENCHMARKS.md Synchro); 4 MB for the event
  // loop's own connection, which reads single rows (gets, the change log) and, at the synchro's start, each type's
  // stored versions once.
  db.pragma(`cache_size = ${-CACHE_KIB[kind]}`);
  // No memory-mapped I/O: a mapping counts every page a connection touched in the process's RSS, once per
  // connection (a 100,000-pod list reached 440 MB RSS with 256 MiB maps against 190 MB without, BENCHMARKS.md
  // Apiserver), and neither lists nor a 60k-pod ingest measured faster with it. Reads go through SQLite's page cache
  // above and the OS page cache.
  db.pragma('mmap_size = 0');
  return db;
}

/**
 * `sqlite::memory:` is a file in a fresh temporary directory, removed on close: every connection of an in-memory
 * database would otherwise see its own empty database, and WAL (snapshots for streamed lists) needs a file.
 */
export function resolveDatabasePath(path: string): { file: string; cleanup: () => void } {
  if (path !== ':memory:') return { file: path, cleanup: () => {} };
  const dir = mkdtempSync(join(tmpdir(), 'clusterpedia-memory-'));
  return { file: join(dir, 'memory.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Read connections handed out one per snapshot; one opened at once, at most `max`, further callers wait. */
export class ReadPool {
  private readonly idle: Db[] = [];
  private readonly waiters: ((db: Db) => void)[] = [];
  private open = 0;
  private closed = false;

  constructor(
    private readonly path: string,
    private readonly busyTimeoutMs: number,
    private readonly max: number,
  ) {
    // One is opened now, so that a request can always wait for a connection instead of failing when no more can be
    // opened (the open-files limit reached under many client connections).
    this.idle.push(openConnection(path, busyTimeoutMs, 'reader'));
    this.open = 1;
  }

  async acquire(): Promise<Db> {
    if (this.closed) throw new Error('storage is closed');
    const db = this.idle.pop();
    if (db) return db;
    if (this.open < this.max) {
      this.open++;
      try {
        return openConnection(this.path, this.busyTimeoutMs, 'reader');
      } catch {
        // Out of file descriptors (EMFILE: the open-files limit) or memory: one connection is always open (the
        // constructor's), and it will come back, so wait for it rather than fail the request.
        this.open--;
      }
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  release(db: Db): void {
    if (db.inTransaction) db.exec('ROLLBACK');
    const waiter = this.waiters.shift();
    if (waiter) return waiter(db);
    if (this.closed) {
      db.close();
      this.open--;
      return;
    }
    this.idle.push(db);
  }

  close(): void {
    this.closed = true;
    for (const db of this.idle.splice(0)) {
      db.close();
      this.open--;
    }
  }
}
