// The SQLite writer on a thread of its own. better-sqlite3 is synchronous: on the event loop's thread a write batch
// (statements, commit, the page reads of a large file) stopped everything else — the synchro's watch parsing, the
// binding role's API — for its whole length, and shared that thread's caches with them. The worker owns the one
// connection that writes; the event loop renders each batch to plain data (write-plan.ts), posts it, and goes on.
import { Worker } from 'node:worker_threads';
import type { Logger } from '../../lib/log.js';
import { StorageError } from '../errors.js';
import { betterSqlite3Module, stopWorker } from './workers.js';
import { packWrite, type PackedWrite, type Writer, type WriterAnswers, type WriterOp, type WriterReply } from './writer-ops.js';

/** The worker's code, bundled by build.mjs into the executable. */
declare const __SQLITE_WRITER_WORKER__: string | undefined;

let source: Promise<string> | undefined;

/** The worker's code: as bundled, or (running from source: tests, tsx) bundled now by the same build step. */
function workerSource(): Promise<string> {
  source ??= typeof __SQLITE_WRITER_WORKER__ === 'string'
    ? Promise.resolve(__SQLITE_WRITER_WORKER__)
    : import(/* @vite-ignore */ new URL('../../../build.mjs', import.meta.url).href).then((m: { bundleSqliteWriter: () => Promise<string> }) => m.bundleSqliteWriter());
  return source;
}

export interface WriterThreadOptions {
  file: string;
  busyTimeoutMs: number;
  logger: Logger;
  /** better-sqlite3's entry module, for the worker (resolved from here by default). */
  module?: string;
}

interface Waiter {
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/**
 * Requests to the writer thread, answered in the order sent. The thread starts with the first request; if it dies,
 * what it had not answered fails as Unavailable (retryable: the transaction it was in rolled back) and the next
 * request starts a new one.
 */
export class WriterThread implements Writer {
  private worker: Promise<Worker> | undefined;
  private readonly waiting = new Map<number, Waiter>();
  private nextId = 1;
  private closed = false;
  private drained: (() => void) | undefined;

  constructor(private readonly o: WriterThreadOptions) {}

  /**
   * Runs one op on the writer thread. Driver errors come back as Errors carrying better-sqlite3's `code`. The request
   * counts as sent from this call on: close() waits for it even if the thread is still starting.
   */
  call<K extends WriterOp['op']>(op: Extract<WriterOp, { op: K }>): Promise<WriterAnswers[K]> {
    if (this.closed) return Promise.reject(new StorageError('Unavailable', 'storage is closed', false));
    const id = this.nextId++;
    // Packed now: the batch's strings can go while the request waits for the thread.
    const plain: WriterOp = op;
    const message: WriterOp | PackedWrite = plain.op === 'write' ? packWrite(plain) : plain;
    const answered = new Promise<WriterAnswers[K]>((resolve, reject) => this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject }));
    const starting = (this.worker ??= this.start());
    // Callbacks on one promise run in the order they were added: requests reach the thread in call order.
    starting.then(
      (w) => {
        if (!this.waiting.has(id)) return;
        w.ref();
        w.postMessage({ id, ...message }, message.op === 'packedWrite' ? [message.buffer] : undefined);
      },
      (e: unknown) => {
        if (this.worker === starting) this.worker = undefined;
        this.settle(id)?.reject(new StorageError('Internal', `could not start the SQLite writer thread: ${e instanceof Error ? e.message : String(e)}`, false, { cause: e }));
      },
    );
    return answered;
  }

  /** Takes the waiter of `id` out (undefined if it is gone); the last one out unrefs the thread and ends close()'s wait. */
  private settle(id: number, w?: Worker): Waiter | undefined {
    const waiter = this.waiting.get(id);
    if (!waiter) return undefined;
    this.waiting.delete(id);
    if (this.waiting.size === 0) {
      w?.unref();
      this.drained?.();
    }
    return waiter;
  }

  private async start(): Promise<Worker> {
    const module = this.o.module ?? betterSqlite3Module();
    // Evaluated as CommonJS: its require('better-sqlite3') is pointed at the addon this process loaded.
    const code = `(function (require) {\n${await workerSource()}\n})(((r, m) => (id) => (id === 'better-sqlite3' ? r(m) : r(id)))(require, require('node:worker_threads').workerData.module));`;
    const w = new Worker(code, { eval: true, workerData: { file: this.o.file, busyTimeoutMs: this.o.busyTimeoutMs, module } });
    // Only unanswered requests keep the process alive.
    w.unref();
    w.on('message', (m: WriterReply) => this.answer(w, m));
    w.on('error', (e: Error) => this.stopped(w, e.message));
    w.on('exit', (code) => this.stopped(w, `exited with code ${code}`));
    return w;
  }

  private answer(w: Worker, m: WriterReply): void {
    const waiter = this.settle(m.id, w);
    if (!waiter) return;
    if (m.ok) waiter.resolve(m.value);
    else waiter.reject(Object.assign(new Error(m.error.message), m.error.code ? { code: m.error.code } : {}));
  }

  /** The worker is gone: fail what it had not answered; the next call starts another. */
  private stopped(w: Worker, why: string): void {
    void this.worker?.then((current) => {
      if (current !== w) return;
      this.worker = undefined;
      if (!this.closed) this.o.logger.warn({ err: why }, 'SQLite writer thread stopped');
      const err = new StorageError('Unavailable', `the SQLite writer thread stopped (${why}); the write was not committed`, true);
      for (const waiter of this.waiting.values()) waiter.reject(err);
      this.waiting.clear();
      this.drained?.();
    });
  }

  /** Lets the thread answer what it was sent, then closes its connection and stops it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const pending = this.worker;
    if (!pending) return;
    const w = await pending.catch(() => undefined);
    if (!w) return;
    if (this.waiting.size > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    await stopWorker(w);
    this.worker = undefined;
  }
}
