// What the SQLite worker threads (checkpointer.ts, writer-thread.ts) share: where better-sqlite3 is, and how one stops.
import { createRequire } from 'node:module';
import type { Worker } from 'node:worker_threads';

/** better-sqlite3's entry module as this process resolves it (a worker's eval'd code would resolve from the cwd). */
export function betterSqlite3Module(): string {
  return createRequire(import.meta.url).resolve('better-sqlite3');
}

/** Sends 'close' (the worker closes its connection and exits), and terminates it if it has not exited in 5 s. */
export async function stopWorker(w: Worker): Promise<void> {
  const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
  w.postMessage('close');
  const timeout = setTimeout(() => void w.terminate(), 5000);
  await exited;
  clearTimeout(timeout);
}
