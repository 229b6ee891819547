// Entry of the SQLite writer thread (bundled on its own into a string: writer-thread.ts). It opens the writer
// connection and runs requests in the order they arrive, one transaction each.
import { parentPort, workerData } from 'node:worker_threads';
import { openConnection, type Db } from './connection.js';
import { runWriterOp, toFailure, unpackWrite, type WriterReply, type WriterRequest } from './writer-ops.js';

const port = parentPort;
if (!port) throw new Error('the SQLite writer runs on a worker thread');
const data = workerData as { file: string; busyTimeoutMs: number };
let db: Db | undefined;
let opened: unknown;
try {
  db = openConnection(data.file, data.busyTimeoutMs, 'writer');
} catch (e: unknown) {
  opened = e;
}

port.on('message', (m: WriterRequest | 'close') => {
  if (m === 'close') {
    db?.close();
    port.close();
    return;
  }
  let reply: WriterReply;
  try {
    if (!db) throw opened;
    reply = { id: m.id, ok: true, value: runWriterOp(db, m.op === 'packedWrite' ? unpackWrite(m) : m) };
  } catch (e: unknown) {
    reply = { id: m.id, ok: false, error: toFailure(e) };
  }
  port.postMessage(reply);
});
