// What the SQLite writer thread is asked to do: every statement that writes the database, each request one
// transaction on the thread's own connection. Requests and answers are plain data (they cross threads by copy), but
// for a batch's stored texts, which cross in one buffer that is moved, not copied (packWrite).
import type { ResourceType, WriteFence } from '../types.js';
import type { TemplateParts } from '../object-columns.js';
import type { TypeRows } from '../analyze-policy.js';
import { rowChanges, type CollapsedBatch } from '../write-plan.js';
import { setWalAutocheckpoint, type Db } from './connection.js';
import { sqliteErrorCode } from './errors.js';
import {
  applyBatch, assertFence, cleanRows, compactChanges, deleteClusterStatus, moveRevision, putClusterStatus, refreshStatistics, releaseLease, tryAcquireLease,
} from './write.js';

export type WriterOp =
  | { op: 'write'; batch: CollapsedBatch<TemplateParts>; now: number; fence?: WriteFence }
  | { op: 'clean'; cluster: string; type: ResourceType | undefined; now: number; fence?: WriteFence }
  | { op: 'putClusterStatus'; cluster: string; spec: string; status: string; updatedAt: string; requireRevision?: number; fence?: WriteFence }
  | { op: 'deleteClusterStatus'; cluster: string; fence?: WriteFence }
  | { op: 'tryAcquireLease'; name: string; holder: string; ttlMs: number; now: number }
  | { op: 'releaseLease'; name: string; holder: string }
  | { op: 'compact'; keep: number; cutoffTime: number }
  | { op: 'moveRevision'; to: number; compact: boolean }
  | { op: 'analyze' }
  | { op: 'autocheckpoint'; bytes: number };

/** What each op answers. */
export interface WriterAnswers {
  write: { written: number; deleted: number; skipped: number; revision: number; rows: TypeRows[] };
  clean: { count: number; revision: number };
  putClusterStatus: boolean;
  deleteClusterStatus: void;
  tryAcquireLease: boolean;
  releaseLease: void;
  compact: void;
  moveRevision: number;
  analyze: void;
  autocheckpoint: void;
}

/** Where a template's text is in the buffer of a packed write: UTF-8 byte offsets, the head first, then the tail. */
export interface PackedTemplate {
  at: number;
  headBytes: number;
  bytes: number;
}

/** A write as it crosses to the thread: the batch as data, every stored text in `buffer`, transferred with it. */
export interface PackedWrite {
  op: 'packedWrite';
  batch: CollapsedBatch<PackedTemplate>;
  buffer: ArrayBuffer;
  now: number;
  fence?: WriteFence;
}

/**
 * Packs a write for the thread. Copied as strings, a batch's texts (~4 KB an object) were rebuilt on the thread's
 * heap, outlived a scavenge or two while the transaction ran, and were promoted: the thread's old generation held tens
 * of MB of dead batches between its collections. As bytes in a transferred buffer they are never strings there at
 * all: SQLite reads them (write.ts, OBJECT).
 */
export function packWrite(w: Extract<WriterOp, { op: 'write' }>): PackedWrite {
  let total = 0;
  for (const o of w.batch.ops) if (o.op === 'upsert') total += o.template.bytes;
  const buffer = new ArrayBuffer(total);
  const view = Buffer.from(buffer);
  let at = 0;
  const put = (part: string | Uint8Array): number => {
    const n = typeof part === 'string' ? view.write(part, at, 'utf8') : (view.set(part, at), part.length);
    at += n;
    return n;
  };
  const ops = w.batch.ops.map((o) => {
    if (o.op === 'delete') return o;
    const start = at;
    const headBytes = put(o.template.head);
    put(o.template.tail);
    if (at - start !== o.template.bytes) throw new Error(`packWrite: a template of ${o.template.bytes} bytes took ${at - start}`);
    return { ...o, template: { at: start, headBytes, bytes: o.template.bytes } };
  });
  return { op: 'packedWrite', batch: { ...w.batch, ops }, buffer, now: w.now, ...(w.fence ? { fence: w.fence } : {}) };
}

/** The write a packed one stands for, its texts as views of the buffer (no copies). */
export function unpackWrite(p: PackedWrite): Extract<WriterOp, { op: 'write' }> {
  const ops = p.batch.ops.map((o) => {
    if (o.op === 'delete') return o;
    const { at, headBytes, bytes } = o.template;
    return { ...o, template: { head: Buffer.from(p.buffer, at, headBytes), tail: Buffer.from(p.buffer, at + headBytes, bytes - headBytes), bytes } };
  });
  return { op: 'write', batch: { ...p.batch, ops }, now: p.now, ...(p.fence ? { fence: p.fence } : {}) };
}

export type WriterRequest = { id: number } & (WriterOp | PackedWrite);

/** An error as it crosses back: better-sqlite3's `code` (SQLITE_BUSY, …) is what the main thread maps. */
export interface WriterFailure {
  message: string;
  code?: string;
}

export type WriterReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: WriterFailure };

/** Runs one request on the writer connection. */
export function runWriterOp(db: Db, r: WriterOp): WriterAnswers[WriterOp['op']] {
  switch (r.op) {
    case 'write': {
      const plan = db.transaction(() => (assertFence(db, r.fence), applyBatch(db, r.batch, r.now))).immediate();
      return { written: plan.upserts.length, deleted: plan.deletes.length, skipped: plan.skipped, revision: plan.revision, rows: rowChanges(plan.types) };
    }
    case 'clean':
      return db.transaction(() => (assertFence(db, r.fence), cleanRows(db, r.cluster, r.type, r.now))).immediate();
    case 'putClusterStatus':
      return db.transaction(() => (assertFence(db, r.fence), putClusterStatus(db, r.cluster, r.spec, r.status, r.updatedAt, r.requireRevision))).immediate();
    case 'deleteClusterStatus':
      return db.transaction(() => (assertFence(db, r.fence), deleteClusterStatus(db, r.cluster))).immediate();
    case 'tryAcquireLease':
      return tryAcquireLease(db, r.name, r.holder, r.ttlMs, r.now);
    case 'releaseLease':
      return releaseLease(db, r.name, r.holder);
    case 'compact':
      return db.transaction(() => compactChanges(db, r.keep, r.cutoffTime)).immediate();
    case 'moveRevision':
      return db.transaction(() => moveRevision(db, r.to, r.compact)).immediate();
    case 'analyze':
      return refreshStatistics(db);
    case 'autocheckpoint':
      return setWalAutocheckpoint(db, r.bytes);
  }
}

/** The failure of `e` as plain data. */
export function toFailure(e: unknown): WriterFailure {
  const code = sqliteErrorCode(e);
  return { message: e instanceof Error ? e.message : String(e), ...(code ? { code } : {}) };
}

/** Where writes run: the writer thread (writer-thread.ts), or `InlineWriter` on the caller's own connection. */
export interface Writer {
  call<K extends WriterOp['op']>(op: Extract<WriterOp, { op: K }>): Promise<WriterAnswers[K]>;
  close(): Promise<void>;
}

/** Writes on the caller's connection, synchronously (the promise only carries the answer). */
export class InlineWriter implements Writer {
  constructor(private readonly db: Db) {}

  async call<K extends WriterOp['op']>(op: Extract<WriterOp, { op: K }>): Promise<WriterAnswers[K]> {
    return runWriterOp(this.db, op) as WriterAnswers[K];
  }

  async close(): Promise<void> {}
}
