// WAL checkpoints on a worker thread: copying the WAL's pages into the database file and fsyncing it no longer stops
// the event loop that writes (and, in the binding role, serves the API).
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { betterSqlite3Module, stopWorker } from './workers.js';

/**
 * The worker: its own connection to the file, one PASSIVE checkpoint per request. PASSIVE copies what no reader
 * still needs and never waits for the writer, which goes on appending to the WAL meanwhile.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file);
db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
db.pragma('wal_autocheckpoint = 0');
parentPort.on('message', (m) => {
  if (m === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    const r = db.pragma('wal_checkpoint(PASSIVE)')[0];
    parentPort.postMessage({ log: r.log, checkpointed: r.checkpointed });
  } catch (e) {
    parentPort.postMessage({ error: String(e && e.message ? e.message : e) });
  }
});
`;

export interface CheckpointerOptions {
  file: string;
  busyTimeoutMs: number;
  /** Sets the writing connection's own automatic checkpoint, at this many bytes of WAL: it becomes the backstop. */
  setAutocheckpoint: (bytes: number) => void;
  logger: Logger;
  /** WAL bytes after which the writer checkpoints itself when there is no worker (its setting when opened). */
  ownBytes: number;
  /** The same while the worker runs: a backstop for a worker that falls behind. */
  backstopBytes: number;
  /** At most one checkpoint per this many milliseconds while writes go on. */
  intervalMs?: number;
  /** better-sqlite3's entry module, for the worker (resolved from here by default). */
  module?: string;
}

/**
 * Runs the writer's checkpoints on a worker thread. After each commit the writer calls `committed()`; the worker
 * checkpoints at most once per interval, and once more after the last commit, so an idle database ends up in its
 * file. The writer keeps SQLite's automatic checkpoint at a larger size as a backstop: if the worker fails, or never
 * catches up with a writer that commits without pause (the WAL only starts over once a checkpoint has copied all of
 * it), the writer checkpoints itself as before.
 */
export class Checkpointer {
  private worker: Worker | undefined;
  private failed = false;
  private closed = false;
  private busy = false;
  private pending = false;
  private timer: NodeJS.Timeout | undefined;
  private last = 0;
  private readonly intervalMs: number;

  constructor(private readonly o: CheckpointerOptions) {
    this.intervalMs = o.intervalMs ?? 1000;
  }

  /** Called after each write transaction. Starts the worker on the first. */
  committed(): void {
    if (this.failed || this.closed) return;
    if (!this.worker && !this.start()) return;
    if (this.busy || this.timer) {
      this.pending = true;
      return;
    }
    const wait = this.last + this.intervalMs - Date.now();
    if (wait > 0) this.schedule(wait);
    else this.request();
  }

  private start(): boolean {
    try {
      const module = this.o.module ?? betterSqlite3Module();
      const w = new Worker(WORKER_SOURCE, { eval: true, workerData: { file: this.o.file, busyTimeoutMs: this.o.busyTimeoutMs, module } });
      w.on('message', (m: { log?: number; checkpointed?: number; error?: string }) => this.done(m));
      w.on('error', (e: Error) => this.fail(e.message));
      w.on('exit', (code) => {
        if (this.worker === w && code !== 0) this.fail(`checkpoint worker exited with ${code}`);
      });
      // The worker must not keep a finished process alive.
      w.unref();
      this.worker = w;
      this.setAutocheckpoint(this.o.backstopBytes);
      return true;
    } catch (e: unknown) {
      this.fail(e instanceof Error ? e.message : String(e));
      return false;
    }
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.request();
    }, ms);
    this.timer.unref();
  }

  private request(): void {
    if (!this.worker) return;
    this.busy = true;
    this.pending = false;
    this.last = Date.now();
    this.worker.postMessage('checkpoint');
  }

  private done(m: { log?: number; checkpointed?: number; error?: string }): void {
    this.busy = false;
    // A failed checkpoint (SQLITE_BUSY, say) is retried with the next commit; the backstop bounds the WAL meanwhile.
    if (m.error) this.o.logger.debug({ err: m.error }, 'background checkpoint failed');
    if (this.pending && !this.timer) this.schedule(Math.max(0, this.last + this.intervalMs - Date.now()));
  }

  private fail(reason: string): void {
    if (this.failed) return;
    this.failed = true;
    this.o.logger.warn({ err: reason }, 'background WAL checkpoints stopped; the writer checkpoints itself');
    void this.detach()?.terminate();
    this.setAutocheckpoint(this.o.ownBytes);
  }

  /** The writer's own automatic checkpoint, at `bytes` of WAL. */
  private setAutocheckpoint(bytes: number): void {
    try {
      this.o.setAutocheckpoint(bytes);
    } catch {
      // a closed writer has nothing left to checkpoint
    }
  }

  /** Cancels a scheduled checkpoint and lets go of the worker, which the caller then stops. */
  private detach(): Worker | undefined {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const w = this.worker;
    this.worker = undefined;
    return w;
  }

  /** Stops the worker (closing its connection first, so the writer's close is the last and removes the WAL). */
  async close(): Promise<void> {
    this.closed = true;
    const w = this.detach();
    if (w) await stopWorker(w);
  }
}
