// The write queue: events of every resource of every cluster coalesce per key and flush in batched transactions,
// with bounded memory (back-pressure on enqueue) and retry without loss while storage is unavailable.
import type { Logger } from 'pino';
import { Backoff } from '../../lib/backoff.js';
import { messageOf } from '../../lib/errors.js';
import { deadline, systemClock, type Clock, type Runnable } from '../../lib/lifecycle.js';
import { isStorageError, StorageError, UnansweredError } from '../../storage/errors.js';
import { originRevision } from '../../storage/revision-origin.js';
import type { PreparedUpsert, ResourceType, StorageWriter, WriteBatch } from '../../storage/types.js';
import { coalesce, type Action } from './coalesce.js';
import type { SynchroMetrics } from './metrics.js';
import { splitKey } from './prune.js';

/** Who produced a write: told when storage refused it for good, so it can forget the key and report Error. */
export interface WriteOwner {
  readonly cluster: string;
  readonly type: ResourceType;
  /** Storage refused this key's write with a non-retryable error. */
  rejected(key: string, resourceVersion: string | undefined, err: unknown): void;
}

/** One write as queued: an upsert (Added/Updated) or a delete. */
export interface QueuedWrite {
  owner: WriteOwner;
  /** "ns/name" or "name". */
  key: string;
  action: Action;
  /** The object as it will be stored (Added/Updated), prepared by storage's `prepareUpsert`. */
  object?: PreparedUpsert;
  /** Member RV of the object, or of the deletion when known. */
  resourceVersion?: string;
  /** Approximate size held (the stored text's), for the memory bound. */
  bytes: number;
}

interface Pending extends QueuedWrite {
  /** When the first event coalesced into this entry arrived (for the event→row delay). */
  since: number;
  /** Enqueue sequence number; pending entries are always in ascending order. */
  seq: number;
}

export interface WriteQueueOptions {
  writer: Pick<StorageWriter, 'write'>;
  batchSize: number;
  flushDelayMs: number;
  maxEntries: number;
  maxBytes: number;
  logger: Logger;
  metrics?: SynchroMetrics;
  clock?: Clock;
  /** Retry delays while storage is unavailable. */
  retry?: { initialMs: number; maxMs: number };
  /** On shutdown, how long to keep flushing what is pending, milliseconds. */
  drainMs?: number;
  /**
   * A write that has not settled after this long counts as failed (retryable), milliseconds: a driver stuck on a
   * dead connection must not stall every cluster. Default 30 s, as Clusterpedia's per-write timeout.
   */
  writeTimeoutMs?: number;
  /**
   * Storage.advanceRevision. A write that failed may have committed all the same, and been seen by the apiserver's
   * clients, and then been lost (a PostgreSQL with synchronous_commit=off that crashed, a failover to a replica
   * behind): writing the batch again from the revision after the last one known would issue those revisions again
   * for other changes, and a client holding one would miss them. So before writing again after a failure (its own,
   * or of a write beside it: `beside`) the queue moves the revision up to the clock's microseconds, past every one
   * issued before; the revision found on the way is checked as a batch's is, so a rewind is still seen.
   */
  advanceRevision?: (to: string) => Promise<string>;
}

/** A single writer: one transaction in flight at a time, so a key's writes reach storage in order. */
export class WriteQueue implements Runnable {
  readonly name = 'synchro write queue';
  private pending = new Map<string, Pending>();
  private pendingBytes = 0;
  /** The batch being written counts against the bounds too: in-flight objects are memory as well. */
  private inflightEntries = 0;
  private inflightBytes = 0;
  private inflight: Promise<void> | undefined;
  private seqCounter = 0;
  private durable = 0;
  private wake: (() => void) | undefined;
  /** Enqueuers waiting for room, oldest first; each is let in with a slot reserved for it. */
  private spaceWaiters: { admit: () => void }[] = [];
  /** Slots promised to admitted waiters that have not enqueued yet. */
  private reserved = 0;
  private available = true;
  private lastFailure = '';
  private readonly availabilityListeners = new Set<(available: boolean) => void>();
  private readonly rewindListeners = new Set<(highest: string) => void>();
  /** The storage revision after the last committed batch (or probe): a later one below it means storage went back. */
  private lastRevision: bigint | undefined;
  /** The highest storage revision seen: revisions up to it were issued before a rewind, and may be issued again. */
  private highestRevision = 0n;
  /** Batches committed so far: a probe that overlapped one does not count (its revision may be the older). */
  private committed = 0;
  /** Writes (the queue's, or beside it) whose outcome is unknown so far, and how many of them a move up covered. */
  private doubtful = 0;
  private doubtsCleared = 0;
  private readonly clock: Clock;

  constructor(private readonly o: WriteQueueOptions) {
    this.clock = o.clock ?? systemClock;
  }

  get depth(): number {
    return this.pending.size;
  }

  get bytes(): number {
    return this.pendingBytes;
  }

  /** Sequence number of the latest enqueue: a point in the stream of writes. */
  get lastSeq(): number {
    return this.seqCounter;
  }

  /**
   * Every write enqueued at or before this sequence number is committed (or was refused for good, or purged).
   * Batches are prefixes of the queue, which is in sequence order, so the last entry of a committed batch says it.
   */
  get durableSeq(): number {
    return this.pending.size === 0 && this.inflightEntries === 0 ? this.seqCounter : this.durable;
  }

  /**
   * The storage revision this writer saw last (after its last batch, move or probe): every write it has reported
   * committed is at or below it. Undefined before the first.
   */
  get seenRevision(): string | undefined {
    return this.lastRevision === undefined ? undefined : String(this.lastRevision);
  }

  /** False while storage refuses writes with retryable errors. */
  get storageAvailable(): boolean {
    return this.available;
  }

  /** Why writes are failing (the last retryable error), while `storageAvailable` is false; else ''. */
  get storageError(): string {
    return this.available ? '' : this.lastFailure;
  }

  /**
   * Called when the storage revision goes back: the database was restored from a backup, or failed over to a replica
   * that had not received the last commits. Rows this queue wrote may be gone although their watches moved on.
   */
  onRewind(listener: (highest: string) => void): () => void {
    this.rewindListeners.add(listener);
    return () => this.rewindListeners.delete(listener);
  }

  /**
   * Checks the storage revision while no batch is written (a rewind is otherwise seen at the next write, which an
   * idle fleet may not make for long). `read` is the storage's currentRevision.
   */
  async probeRevision(read: () => Promise<string>): Promise<void> {
    if (this.inflight) return;
    const before = this.committed;
    const revision = await this.timed(read());
    if (this.committed === before && !this.inflight) this.noteRevision(revision);
  }

  /**
   * `taken`: revisions the batch just committed took (one per row written or deleted). Storage that went back by
   * fewer than a batch takes would still end above the last revision seen, so the check is against the last one plus
   * those: nothing else takes revisions from under this writer, but they only ever add to it.
   */
  private noteRevision(revision: string, taken = 0): void {
    const r = BigInt(revision);
    const last = this.lastRevision;
    this.lastRevision = r;
    const highest = this.highestRevision;
    if (r > highest) this.highestRevision = r;
    if (last === undefined || r >= last + BigInt(taken)) return;
    this.o.logger.warn({ revision, before: String(last) }, 'storage revision went back (restored, or failed over to a replica behind); listing every member again');
    for (const l of this.rewindListeners) l(String(highest));
  }

  onAvailability(listener: (available: boolean) => void): () => void {
    this.availabilityListeners.add(listener);
    return () => this.availabilityListeners.delete(listener);
  }

  /**
   * Queues a write, coalescing it with a pending write of the same key. Resolves once queued; waits while the
   * queue is full (back-pressure reaches the member's socket through the awaiting list/watch loop).
   * Rejects only when `signal` aborts while waiting.
   */
  async enqueue(w: QueuedWrite, signal?: AbortSignal): Promise<void> {
    const id = queueId(w.owner.cluster, w.owner.type, w.key);
    // Room is handed out in arrival order: a newcomer queues behind those already waiting, and a waiter let in has
    // its slot reserved. Before, every waiter was woken, whoever ran first took the room a flush made, and a writer
    // arriving in the same tick could take it ahead of all of them: with hundreds of watches blocked on a full queue,
    // one could be passed over again and again.
    if (!this.pending.has(id) && (this.spaceWaiters.length > 0 || !this.hasSpace())) {
      await this.waitForSpace(signal);
      this.reserved--;
      if (signal?.aborted) {
        this.releaseSpace();
        throw signal.reason ?? new Error('aborted');
      }
    }
    const older = this.pending.get(id);
    const now = this.clock.now();
    if (older) {
      const merged = coalesce({ action: older.action, payload: older }, { action: w.action, payload: w })!;
      this.pendingBytes += w.bytes - older.bytes;
      // In place: the entry keeps its position and the sequence number of its oldest unwritten event, and carries
      // the newest state. Every event at or before a flushed entry's number is then committed (its own entry came
      // earlier, or it was merged into one that did), which is what durableSeq tells. Moving the entry to the end
      // instead let a key that changes faster than the queue drains wait as long as the queue stayed full.
      ++this.seqCounter;
      this.pending.set(id, { ...merged.payload, action: merged.action, since: older.since, seq: older.seq });
    } else {
      this.pendingBytes += w.bytes;
      this.pending.set(id, { ...w, since: now, seq: ++this.seqCounter });
    }
    this.o.metrics?.queueEntries.set(this.pending.size);
    this.o.metrics?.queueBytes.set(this.pendingBytes);
    this.wake?.();
    // A write that coalesced used no new slot: its reservation goes to the next in line.
    if (this.spaceWaiters.length > 0) this.releaseSpace();
  }

  /**
   * Drops pending writes that match and waits for the transaction in flight, so that a following
   * cleanCluster/cleanResource is not undone by a late write.
   */
  async purge(match: (owner: WriteOwner) => boolean): Promise<void> {
    for (const [id, p] of this.pending) {
      if (match(p.owner)) {
        this.pending.delete(id);
        this.pendingBytes -= p.bytes;
      }
    }
    this.releaseSpace();
    await this.inflight;
  }

  async start(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (this.pending.size === 0) await this.waitForWork(signal);
      if (signal.aborted) break;
      // A partial batch waits a moment: a burst of events then costs one transaction, not one each.
      if (this.pending.size < this.o.batchSize && this.o.flushDelayMs > 0) await this.clock.sleep(this.o.flushDelayMs, signal);
      if (signal.aborted) break;
      await this.flushOnce(signal, true);
    }
    await this.drain();
  }

  /** Writes what is pending on shutdown, for a bounded time; what remains is re-read from members after restart. */
  private async drain(): Promise<void> {
    const deadline = this.clock.now() + (this.o.drainMs ?? 10_000);
    const never = new AbortController().signal;
    while (this.pending.size > 0 && this.clock.now() < deadline) {
      if (!(await this.flushOnce(never, false))) {
        this.o.logger.warn({ pending: this.pending.size, err: this.lastFailure }, 'write queue not drained on shutdown; members are re-read after restart');
        break;
      }
    }
    this.releaseSpace();
  }

  /** Takes and writes one batch; false when it gave up (abort, or storage unavailable without `retry`). */
  private async flushOnce(signal: AbortSignal, retry: boolean): Promise<boolean> {
    const batch = this.takeBatch();
    if (batch.length === 0) return true;
    const p = this.writeBatch(batch, signal, retry);
    this.inflight = p.then(() => undefined);
    try {
      const done = await p;
      if (!done) this.requeue(batch);
      return done;
    } finally {
      this.inflight = undefined;
      this.inflightEntries = 0;
      this.inflightBytes = 0;
      this.releaseSpace();
    }
  }

  private takeBatch(): Pending[] {
    const batch: Pending[] = [];
    for (const [id, p] of this.pending) {
      if (batch.length >= this.o.batchSize) break;
      this.pending.delete(id);
      this.pendingBytes -= p.bytes;
      this.inflightBytes += p.bytes;
      batch.push(p);
    }
    this.inflightEntries = batch.length;
    return batch;
  }

  /** Puts an unwritten batch back in front, unless a newer write of the same key is already pending. */
  private requeue(batch: Pending[]): void {
    const newer = this.pending;
    const merged = new Map<string, Pending>();
    for (const p of batch) {
      const id = queueId(p.owner.cluster, p.owner.type, p.key);
      if (newer.has(id)) continue;
      merged.set(id, p);
      this.pendingBytes += p.bytes;
    }
    for (const [id, p] of newer) merged.set(id, p);
    this.pending = merged;
  }

  /**
   * Writes one batch. Retryable failures are retried (with back-off) until success or abort; a non-retryable one
   * splits the batch so one bad object does not sink the others.
   */
  private async writeBatch(batch: Pending[], signal: AbortSignal, retry: boolean): Promise<boolean> {
    const backoff = new Backoff({ initialMs: this.o.retry?.initialMs ?? 500, maxMs: this.o.retry?.maxMs ?? 10_000 });
    for (;;) {
      const started = this.clock.now();
      try {
        await this.clearDoubt(false);
        const result = await this.withTimeout(this.o.writer.write(toStorageBatch(batch)));
        const done = this.clock.now();
        const m = this.o.metrics;
        if (m) {
          m.writeBatchSize.observe(batch.length);
          m.writeSeconds.observe((done - started) / 1000);
          m.rowsWritten.inc({ outcome: 'written' }, result.written);
          m.rowsWritten.inc({ outcome: 'skipped' }, result.skipped);
          m.rowsWritten.inc({ outcome: 'deleted' }, result.deleted);
          for (const p of batch) m.eventDelaySeconds.observe((done - p.since) / 1000);
        }
        // Batches are prefixes of the queue, which is in sequence order: everything up to the last entry is written.
        this.durable = Math.max(this.durable, batch[batch.length - 1]!.seq);
        this.committed++;
        this.noteRevision(result.revision, result.written + result.deleted);
        this.setAvailable(true);
        return true;
      } catch (e: unknown) {
        const retryable = isStorageError(e) && e.retryable;
        this.o.metrics?.writeErrors.inc({ retryable: String(retryable) });
        if (!retryable) return this.splitAfterFatal(batch, e, signal, retry);
        this.doubtful++;
        this.lastFailure = messageOf(e);
        this.setAvailable(false);
        if (!retry || signal.aborted) return false;
        const delay = backoff.next();
        // Unreachable, or refused for now (a lease another writer holds: this one's leader election is about to stop it).
        this.o.logger.warn({ err: messageOf(e), batch: batch.length, delayMs: delay }, isStorageError(e) && e.code === 'Conflict' ? 'write refused; retrying' : 'storage unavailable; retrying write');
        await this.clock.sleep(delay, signal);
        if (signal.aborted) return false;
      }
    }
  }

  /**
   * Runs a write made beside the queue (cleanCluster, cleanResource) under the queue's rule for writes whose outcome
   * is unknown: after one, the queue's or beside it, the revision moves up to the clock before the next write of
   * either; and a retryable failure of this one is such a write.
   */
  async beside<T>(write: () => Promise<T>): Promise<T> {
    await this.clearDoubt(true);
    try {
      return await write();
    } catch (e: unknown) {
      if (isStorageError(e) && e.retryable) this.doubtful++;
      throw e;
    }
  }

  /**
   * Moves the revision up to the clock if a write since the last move may have committed (see advanceRevision in
   * the options), and checks the revision found there for a rewind. `beside`: called for a write beside the queue,
   * which may overlap a batch whose revision the one found trails; it is then not checked, as a probe's is not.
   * Concurrent callers may both move it: each move is harmless.
   */
  private async clearDoubt(beside: boolean): Promise<void> {
    const upTo = this.doubtful;
    if (upTo === this.doubtsCleared || !this.o.advanceRevision) return;
    const before = this.committed;
    const idle = !this.inflight;
    let found: string;
    try {
      found = await this.withTimeout(this.o.advanceRevision(String(originRevision())));
    } catch (e: unknown) {
      // Never the fault of the write that waits for it: a batch would take it for a bad object, split and drop it.
      if (isStorageError(e) && e.retryable) throw e;
      throw new StorageError('Unavailable', `move the revision up after a write whose outcome is unknown: ${messageOf(e)}`, true, { cause: e });
    }
    this.doubtsCleared = Math.max(this.doubtsCleared, upTo);
    if (!beside || (idle && this.committed === before && !this.inflight)) this.noteRevision(found);
  }

  private withTimeout<T>(p: Promise<T>): Promise<T> {
    const ms = this.o.writeTimeoutMs ?? 30_000;
    return deadline(p, ms, () => new StorageError('Unavailable', `storage write did not complete within ${ms} ms`, true), this.clock);
  }

  /**
   * A short storage call the synchro waits on before it can go on (the stored rows a resource starts from, the stored
   * status, a status row written), given up as a write is (`writeTimeoutMs`): one on a connection that died without
   * a word would otherwise hold its resource or cluster in silence until the kernel gives the connection up.
   * `timedOut`: how many times in a row the caller's call ran out of time (UnansweredError); each doubles the time
   * given (up to 16 times), so a read that is only slow (a large resource on a loaded server) still gets through.
   */
  timed<T>(call: Promise<T>, timedOut = 0): Promise<T> {
    const ms = (this.o.writeTimeoutMs ?? 30_000) * 2 ** Math.min(timedOut, 4);
    return deadline(call, ms, () => new UnansweredError(ms), this.clock);
  }

  /** A non-retryable failure: halve the batch until the offending objects stand alone, and skip only those. */
  private async splitAfterFatal(batch: Pending[], err: unknown, signal: AbortSignal, retry: boolean): Promise<boolean> {
    if (batch.length === 1) {
      const p = batch[0]!;
      this.o.metrics?.rowsWritten.inc({ outcome: 'rejected' });
      this.o.logger.error({ err: messageOf(err), cluster: p.owner.cluster, resource: p.owner.type.resource, key: p.key }, 'storage rejected a write; object skipped');
      p.owner.rejected(p.key, p.resourceVersion, err);
      this.durable = Math.max(this.durable, p.seq);
      return true;
    }
    const mid = Math.ceil(batch.length / 2);
    const first = await this.writeBatch(batch.slice(0, mid), signal, retry);
    if (!first) return false;
    return this.writeBatch(batch.slice(mid), signal, retry);
  }

  private setAvailable(available: boolean): void {
    if (this.available === available) return;
    this.available = available;
    this.o.logger.info({ available }, available ? 'storage writes resumed' : 'storage writes failing');
    for (const l of this.availabilityListeners) l(available);
  }

  private hasSpace(): boolean {
    const entries = this.pending.size + this.inflightEntries;
    // A reserved slot's write is not known yet: count it at the mean size of what is queued.
    const reservedBytes = this.reserved === 0 ? 0 : (this.reserved * (this.pendingBytes + this.inflightBytes)) / Math.max(1, entries);
    return entries + this.reserved < this.o.maxEntries && this.pendingBytes + this.inflightBytes + reservedBytes < this.o.maxBytes;
  }

  /** Resolves once this waiter is let in, with a slot reserved (`reserved` counts it), or once `signal` aborts. */
  private waitForSpace(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const waiter = {
        admit: (): void => {
          signal?.removeEventListener('abort', onAbort);
          this.reserved++;
          resolve();
        },
      };
      const onAbort = (): void => {
        const i = this.spaceWaiters.indexOf(waiter);
        if (i >= 0) this.spaceWaiters.splice(i, 1);
        this.reserved++; // given back by the aborted enqueue like any reservation
        resolve();
      };
      if (signal?.aborted) {
        this.reserved++;
        resolve();
        return;
      }
      this.spaceWaiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Lets waiters in, oldest first, while there is room. */
  private releaseSpace(): void {
    this.o.metrics?.queueEntries.set(this.pending.size);
    this.o.metrics?.queueBytes.set(this.pendingBytes);
    while (this.spaceWaiters.length > 0 && this.hasSpace()) this.spaceWaiters.shift()!.admit();
  }

  private waitForWork(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.wake = undefined;
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.wake = done;
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

function queueId(cluster: string, t: ResourceType, key: string): string {
  return `${cluster}\u0000${t.group}\u0000${t.version}\u0000${t.resource}\u0000${key}`;
}

function toStorageBatch(batch: Pending[]): WriteBatch {
  const out: WriteBatch = { upserts: [], deletes: [] };
  for (const p of batch) {
    const { cluster, type } = p.owner;
    if (p.action === 'Deleted' || !p.object) {
      const { namespace, name } = splitKey(p.key);
      out.deletes.push({ cluster, group: type.group, version: type.version, resource: type.resource, namespace, name, resourceVersion: p.resourceVersion });
    } else {
      out.upserts.push(p.object);
    }
  }
  return out;
}
