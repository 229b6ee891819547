// The write queue: coalescing, batching by size and delay, back-pressure, retry without loss, split on fatal errors.
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger, type Logger } from '../../../src/lib/log.js';
import { StorageError, UnansweredError } from '../../../src/storage/errors.js';
import { isPrepared, prepareUpsert } from '../../../src/storage/object-columns.js';
import type { PreparedUpsert, StorageWriter, WriteBatch, WriteResult } from '../../../src/storage/types.js';
import type { Action } from '../../../src/roles/synchro/coalesce.js';
import { WriteQueue, type WriteOwner } from '../../../src/roles/synchro/write-queue.js';
import { FakeClock, settle } from './fake-clock.js';
import { recordingLogger } from '../../support/log.js';

/** An in-memory writer that records each transaction and can be told to fail. */
class RecordingWriter implements Pick<StorageWriter, 'write'> {
  batches: { upserts: PreparedUpsert[]; deletes: WriteBatch['deletes'] }[] = [];
  failures: (Error | 'hang' | undefined)[] = [];
  poison = new Set<string>();
  async write(batch: WriteBatch): Promise<WriteResult> {
    const f = this.failures.shift();
    if (f === 'hang') return new Promise<WriteResult>(() => undefined);
    if (f) throw f;
    // The queue hands storage what the synchro prepared, never a parsed object.
    const upserts = batch.upserts.filter(isPrepared);
    expect(upserts).toHaveLength(batch.upserts.length);
    if (upserts.some((u) => this.poison.has(u.cols.name))) throw new StorageError('Internal', 'bad object', false);
    this.batches.push({ upserts, deletes: batch.deletes });
    return { written: batch.upserts.length, skipped: 0, deleted: batch.deletes.length, revision: String(this.batches.length) };
  }
  get names(): string[] {
    return this.batches.flatMap((b) => [...b.upserts.map((u) => `${u.cols.name}@${u.cols.memberRv}`), ...b.deletes.map((d) => `-${d.name}`)]);
  }
}

/** A writer whose transactions each wait until the test opens the gate: one batch per open(). */
class GatedWriter extends RecordingWriter {
  waiting: (() => void)[] = [];
  override async write(batch: WriteBatch): Promise<WriteResult> {
    await new Promise<void>((r) => this.waiting.push(r));
    return super.write(batch);
  }
  open(): void {
    this.waiting.shift()?.();
  }
}

class Owner implements WriteOwner {
  readonly type = { group: '', version: 'v1', resource: 'pods' };
  rejectedKeys: string[] = [];
  constructor(readonly cluster: string) {}
  rejected(key: string): void {
    this.rejectedKeys.push(key);
  }
}

const obj = (name: string, rv: string, cluster = 'c1'): PreparedUpsert =>
  prepareUpsert({ cluster, group: '', version: 'v1', resource: 'pods', kind: 'Pod', object: { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', resourceVersion: rv } } });

describe('WriteQueue', () => {
  let stop: AbortController;
  let running: Promise<void> | undefined;
  afterEach(async () => {
    stop?.abort();
    await running;
  });

  function setup(o: Partial<{ batchSize: number; maxEntries: number; maxBytes: number; flushDelayMs: number; logger: Logger }> = {}, writer: RecordingWriter = new RecordingWriter()) {
    const clock = new FakeClock();
    const queue = new WriteQueue({
      writer: writer as unknown as StorageWriter, batchSize: o.batchSize ?? 1000, flushDelayMs: o.flushDelayMs ?? 5,
      maxEntries: o.maxEntries ?? 10_000, maxBytes: o.maxBytes ?? 1 << 30, logger: o.logger ?? silentLogger(), clock, retry: { initialMs: 100, maxMs: 1000 },
      writeTimeoutMs: 5000,
      advanceRevision: writer instanceof LossyStore ? (to) => writer.advanceRevision(to) : undefined,
    });
    stop = new AbortController();
    running = queue.start(stop.signal);
    const owner = new Owner('c1');
    const put = (name: string, rv: string, action: Action = 'Updated', o2: WriteOwner = owner) =>
      queue.enqueue({ owner: o2, key: `ns/${name}`, action, object: obj(name, rv, o2.cluster), resourceVersion: rv, bytes: 100 });
    const del = (name: string, rv?: string) => queue.enqueue({ owner, key: `ns/${name}`, action: 'Deleted', resourceVersion: rv, bytes: 10 });
    return { clock, writer, queue, owner, put, del };
  }

  it('a timed call that does not answer fails after the write timeout, doubled for each one before it that ran out of time', async () => {
    const { clock, queue } = setup();
    const never = new Promise<never>(() => undefined);
    const outcome = (p: Promise<unknown>): { e?: unknown } => {
      const o: { e?: unknown } = {};
      p.catch((e: unknown) => { o.e = e; });
      return o;
    };
    const first = outcome(queue.timed(never));
    const third = outcome(queue.timed(never, 2));
    await clock.advance(4999);
    expect(first.e).toBeUndefined();
    await clock.advance(1);
    expect(String(first.e)).toMatch(/storage did not answer within 5000 ms/);
    expect(first.e).toBeInstanceOf(UnansweredError);
    // Two that ran out of time before it: four times as long, so a read that is only slow gets through in the end.
    await clock.advance(14_999);
    expect(third.e).toBeUndefined();
    await clock.advance(1);
    expect(String(third.e)).toMatch(/storage did not answer within 20000 ms/);
    expect(await queue.timed(Promise.resolve('answer'))).toBe('answer');
  });

  it('a burst costs one transaction: events of one key coalesce, distinct keys share the batch', async () => {
    const { clock, writer, put, del } = setup();
    for (let i = 1; i <= 100; i++) await put(`p${i % 10}`, String(i));
    await del('p3', '101');
    await settle();
    expect(writer.batches).toHaveLength(0);
    await clock.advance(5);
    expect(writer.batches).toHaveLength(1);
    expect(writer.batches[0]!.upserts).toHaveLength(9);
    expect(writer.batches[0]!.deletes).toEqual([expect.objectContaining({ name: 'p3', namespace: 'ns', resourceVersion: '101' })]);
    // Each key carries its newest object.
    expect(writer.names).toContain('p1@91');
    expect(writer.names).toContain('p0@100');
  });

  it('flushes full batches without waiting, in order of each key\'s first unwritten event', async () => {
    const { clock, writer, put } = setup({ batchSize: 1000 });
    for (let i = 0; i < 2500; i++) await put(`p${i}`, String(i + 1));
    await put('p0', '9999');
    await settle();
    await clock.advance(5);
    await clock.advance(5);
    expect(writer.batches.map((b) => b.upserts.length)).toEqual([1000, 1000, 500]);
    // p0 kept its place and carries its newest object.
    expect(writer.names[0]).toBe('p0@9999');
    expect(writer.names.filter((n) => n.startsWith('p0@'))).toEqual(['p0@9999']);
  });

  it('a key that changes faster than the queue drains is still written, and the durable point advances under load', async () => {
    const writer = new GatedWriter();
    const { put, queue } = setup({ batchSize: 2, flushDelayMs: 0 }, writer);
    for (let i = 0; i < 10; i++) await put(`backlog${i}`, '1');
    let hotWritten = -1;
    const durable: number[] = [];
    for (let round = 0; round < 12; round++) {
      // Each round the hot key changes and one more object arrives, while one batch of 2 is written.
      await put('hot', String(100 + round));
      await put(`new${round}`, '1');
      writer.open();
      await settle();
      durable.push(queue.durableSeq);
      if (hotWritten < 0 && writer.names.some((n) => n.startsWith('hot@'))) hotWritten = round;
    }
    // Moved behind every newer event at each change, it would never have reached a batch while the backlog lasted.
    expect(hotWritten).toBeGreaterThanOrEqual(0);
    expect(hotWritten).toBeLessThanOrEqual(6);
    // The queue never emptied, yet the durable point moved with every batch.
    expect(queue.depth).toBeGreaterThan(0);
    expect(new Set(durable).size).toBeGreaterThan(8);
    for (let i = 1; i < durable.length; i++) expect(durable[i]!).toBeGreaterThanOrEqual(durable[i - 1]!);
    while (queue.depth > 0 || writer.waiting.length > 0) {
      writer.open();
      await settle();
    }
  });

  it('back-pressure: enqueue waits while the queue is full and resumes once a batch is written', async () => {
    const { clock, writer, put, queue } = setup({ batchSize: 5, maxEntries: 5 });
    for (let i = 0; i < 5; i++) await put(`p${i}`, '1');
    let sixth = false;
    const p = put('p5', '1').then(() => (sixth = true));
    await settle();
    expect(sixth).toBe(false);
    // Coalescing into a key already pending never waits.
    await put('p1', '2');
    expect(queue.depth).toBe(5);
    await clock.advance(5);
    await p;
    expect(sixth).toBe(true);
    expect(writer.batches[0]!.upserts).toHaveLength(5);
  });

  it('room goes to waiters in arrival order: a newcomer does not take the slot a waiter was let in for', async () => {
    const { clock, writer, put, queue } = setup({ batchSize: 1000, maxEntries: 3 });
    const other = new Owner('c2');
    await put('x', '1', 'Updated', other);
    await put('p1', '1');
    await put('p2', '1');
    const order: string[] = [];
    const a = put('a', '1').then(() => order.push('a'));
    const b = put('b', '1').then(() => order.push('b'));
    await settle();
    expect(order).toEqual([]);
    // One slot frees; in the same tick a third writer arrives. It queues behind the two already waiting.
    const purged = queue.purge((o) => o.cluster === 'c2');
    const d = put('d', '1').then(() => order.push('d'));
    await purged;
    await settle();
    expect(order).toEqual(['a']);
    for (let i = 0; i < 5 && order.length < 3; i++) await clock.advance(5);
    await Promise.all([a, b, d]);
    expect(order).toEqual(['a', 'b', 'd']);
    await clock.advance(5);
    expect(writer.names.filter((n) => /^[abd]@/.test(n))).toEqual(['a@1', 'b@1', 'd@1']);
  });

  it('a waiter that gives up (abort) leaves the line without keeping a slot', async () => {
    const { clock, writer, put, queue, owner } = setup({ batchSize: 1000, maxEntries: 2 });
    await put('p1', '1');
    await put('p2', '1');
    const ac = new AbortController();
    const quitter = queue.enqueue({ owner, key: 'ns/q', action: 'Updated', object: obj('q', '1'), resourceVersion: '1', bytes: 100 }, ac.signal);
    const stays = put('s', '1');
    await settle();
    ac.abort(new Error('watch stopped'));
    await expect(quitter).rejects.toThrow('watch stopped');
    await clock.advance(5);
    await stays;
    await clock.advance(5);
    expect(writer.names).toEqual(['p1@1', 'p2@1', 's@1']);
    expect(queue.depth).toBe(0);
    // An enqueue whose signal is already aborted fails at once instead of waiting in line.
    await put('f1', '1');
    await put('f2', '1');
    await expect(queue.enqueue({ owner, key: 'ns/late', action: 'Updated', object: obj('late', '1'), resourceVersion: '1', bytes: 100 }, AbortSignal.abort(new Error('gone'))))
      .rejects.toThrow('gone');
    await clock.advance(5);
    // Both slots are free again: two writes enter without waiting.
    await put('n1', '1');
    await put('n2', '1');
    expect(queue.depth).toBe(2);
  });

  it('storage unavailable: retries with back-off, nothing lost, availability reported, enqueue blocked when full', async () => {
    const { clock, writer, put, queue } = setup({ batchSize: 3, maxEntries: 4 });
    const seen: boolean[] = [];
    queue.onAvailability((a) => seen.push(a));
    const down = (): StorageError => new StorageError('Unavailable', 'connection refused', true);
    writer.failures = [down(), down(), down()];
    for (let i = 0; i < 3; i++) await put(`p${i}`, '1');
    await settle();
    await clock.advance(5);
    expect(queue.storageAvailable).toBe(false);
    expect(seen).toEqual([false]);
    await put('p3', '1');
    let blocked = true;
    const fifth = put('p4', '1').then(() => (blocked = false));
    await settle();
    expect(blocked).toBe(true);
    for (let i = 0; i < 10 && writer.batches.length === 0; i++) await clock.advance(1000);
    await fifth;
    for (let i = 0; i < 5; i++) await clock.advance(5);
    expect(queue.storageAvailable).toBe(true);
    expect(seen).toEqual([false, true]);
    expect(writer.names.sort()).toEqual(['p0@1', 'p1@1', 'p2@1', 'p3@1', 'p4@1']);
  });

  it('a write refused (a storage lease another writer took) is logged as refused, unreachable storage as unavailable; a drain that gives up says why', async () => {
    const log = recordingLogger<{ msg: string; level: number; err?: string; pending?: number }>();
    const { clock, writer, put } = setup({ logger: log.logger });
    const refused = new StorageError('Conflict', 'write: refused: this writer no longer holds storage lease l (another writer took over)', true);
    writer.failures = [refused, new StorageError('Unavailable', 'connection refused', true), ...new Array<StorageError>(20).fill(refused)];
    await put('a', '1');
    await settle();
    const retries = () => log.lines.filter((l) => l.msg.includes('retrying')).map((l) => [l.msg, l.err]);
    for (let i = 0; i < 20 && retries().length < 2; i++) await clock.advance(50);
    expect(retries()).toEqual([
      ['write refused; retrying', refused.message],
      ['storage unavailable; retrying write', 'connection refused'],
    ]);
    // Stopping while refused: the drain's one try is refused too, and its warning carries the reason.
    stop.abort();
    await running;
    expect(writer.batches).toHaveLength(0);
    expect(log.lines.at(-1)).toMatchObject({ msg: 'write queue not drained on shutdown; members are re-read after restart', pending: 1, err: refused.message });
  });

  it('a write that never settles times out and is retried (a driver stuck on a dead connection)', async () => {
    const { clock, writer, put, queue } = setup();
    writer.failures = ['hang'];
    await put('a', '1');
    await settle();
    await clock.advance(5);
    expect(writer.batches).toHaveLength(0);
    await clock.advance(5000);
    expect(queue.storageAvailable).toBe(false);
    for (let i = 0; i < 5 && writer.batches.length === 0; i++) await clock.advance(1000);
    expect(writer.names).toEqual(['a@1']);
    expect(queue.storageAvailable).toBe(true);
  });

  it('a non-retryable error splits the batch: only the offending object is skipped and its owner told', async () => {
    const { clock, writer, put, owner } = setup();
    writer.poison.add('bad');
    for (const n of ['a', 'b', 'bad', 'c', 'd']) await put(n, '1');
    await settle();
    await clock.advance(5);
    expect(writer.names.sort()).toEqual(['a@1', 'b@1', 'c@1', 'd@1']);
    expect(owner.rejectedKeys).toEqual(['ns/bad']);
  });

  it('purge drops the pending writes of one cluster', async () => {
    const { clock, writer, put, queue } = setup();
    const other = new Owner('c2');
    await put('a', '1');
    await put('b', '1', 'Updated', other);
    await queue.purge((o) => o.cluster === 'c1');
    await clock.advance(5);
    expect(writer.batches.flatMap((b) => b.upserts.map((u) => u.cols.cluster))).toEqual(['c2']);
  });

  it('drains what is pending on shutdown', async () => {
    const { writer, put } = setup({ flushDelayMs: 1000 });
    await put('a', '1');
    await put('b', '1');
    stop.abort();
    await running;
    expect(writer.names).toEqual(['a@1', 'b@1']);
  });

  /** A queue over a RewindableWriter that has committed one batch, and the count of rewinds its listener heard. */
  async function rewindable() {
    const writer = new RewindableWriter();
    const s = setup({}, writer);
    const heard = { rewinds: 0 };
    s.queue.onRewind(() => heard.rewinds++);
    await s.put('a', '1');
    await s.clock.advance(5);
    return { ...s, writer, heard };
  }

  it('a storage revision lower than the last one committed is a rewind: listeners are told once per rewind', async () => {
    const { clock, queue, put, writer, heard } = await rewindable();
    await put('b', '2');
    await clock.advance(5);
    expect(heard.rewinds).toBe(0);
    writer.base = -100;
    await put('c', '3');
    await clock.advance(5);
    expect(heard.rewinds).toBe(1);
    // Climbing again from the lower revision is no new rewind.
    await put('d', '4');
    await clock.advance(5);
    expect(heard.rewinds).toBe(1);
    // Storage that went back by fewer revisions than a batch takes ends above the last one seen: still a rewind.
    writer.base = -100 - 1;
    await put('e', '5');
    await put('f', '6');
    await clock.advance(5);
    expect(writer.batches.at(-1)!.upserts).toHaveLength(2);
    expect(heard.rewinds).toBe(2);
    // An idle queue's probe sees it too.
    await queue.probeRevision(async () => '-500');
    expect(heard.rewinds).toBe(3);
  });

  it('after a write whose outcome is unknown, the retry takes revisions above any that write may have shown readers', async () => {
    const store = new LossyStore();
    const { clock, put } = setup({}, store);
    await put('a', '1');
    await clock.advance(5);
    expect(store.rows.get('a')).toBe(1001);
    // Committed and seen by readers at 1002-1003, then lost (an asynchronous commit, a crash); the ack never came.
    store.loseNext = true;
    await put('b', '1');
    await put('c', '1');
    await clock.advance(5);
    expect(store.seen).toBe(1003);
    expect(store.head).toBe(1001);
    for (let i = 0; i < 5 && !store.rows.has('b'); i++) await clock.advance(1000);
    // Issued again at 1002-1003 for other contents, a reader holding 1003 would never be told of b and c.
    expect(store.rows.get('b')).toBeGreaterThan(store.seen);
    expect(store.rows.get('c')).toBeGreaterThan(store.seen);
  });

  it('a write beside the queue whose outcome is unknown (a clean) moves the revision up before the next write of either', async () => {
    const store = new LossyStore();
    const { clock, put, queue } = setup({}, store);
    const heard = { rewinds: 0 };
    queue.onRewind(() => heard.rewinds++);
    await put('a', '1');
    await clock.advance(5);
    expect(store.head).toBe(1001);
    // A cleanResource whose deletions readers saw at 1002-1004, then lost with the connection.
    await expect(queue.beside(() => store.clean(3, true))).rejects.toThrow('connection closed');
    expect(store.seen).toBe(1004);
    await put('b', '1');
    await clock.advance(5);
    expect(store.rows.get('b')).toBeGreaterThan(store.seen);
    // Moved once: the retried clean after it needs no other move, and takes revisions above b's.
    const b = store.rows.get('b')!;
    expect(await queue.beside(() => store.clean(3, false))).toBe(b + 3);
    // A failure that is not retryable is no doubt: the write after it takes the next revision.
    await expect(queue.beside(() => Promise.reject(new StorageError('Invalid', 'bad', false)))).rejects.toThrow('bad');
    await put('c', '1');
    await clock.advance(5);
    expect(store.rows.get('c')).toBe(b + 4);
    expect(heard.rewinds).toBe(0);
  });

  it('a move up that fails for good is retried, never blamed on the batch waiting for it', async () => {
    const store = new LossyStore();
    const { clock, put, owner } = setup({}, store);
    store.failNext = true;
    store.advanceFails = 2;
    await put('a', '1');
    await put('b', '1');
    await clock.advance(5);
    for (let i = 0; i < 8 && !store.rows.has('b'); i++) await clock.advance(1000);
    // Split and rejected as bad objects before: neither would have been written until a relist.
    expect(store.rows.has('a') && store.rows.has('b')).toBe(true);
    expect(owner.rejectedKeys).toEqual([]);
  });

  it('the revision found on the way up is checked: commits acked and then lost are still a rewind', async () => {
    const store = new LossyStore();
    const { clock, put, queue } = setup({}, store);
    const heard = { rewinds: 0 };
    queue.onRewind(() => heard.rewinds++);
    await put('a', '1');
    await put('b', '1');
    await clock.advance(5);
    expect(store.head).toBe(1002);
    store.head = 1000; // the acked batch is gone
    store.failNext = true;
    await put('c', '1');
    await clock.advance(5);
    for (let i = 0; i < 5 && !store.rows.has('c'); i++) await clock.advance(1000);
    expect(store.rows.has('c')).toBe(true);
    expect(heard.rewinds).toBe(1);
  });

  it('a probe that overlapped a commit does not count: its revision may predate the commit', async () => {
    const { clock, queue, put, writer, heard } = await rewindable();
    let answer: (r: string) => void = () => {};
    const probe = queue.probeRevision(() => new Promise<string>((r) => { answer = r; }));
    await put('b', '2');
    await clock.advance(5);
    expect(writer.batches).toHaveLength(2);
    // Read before that commit: older than it, yet storage did not go back.
    answer('1');
    await probe;
    expect(heard.rewinds).toBe(0);
  });
});

/** Revisions from `base` on: lowering it is storage going back in time. */
class RewindableWriter extends RecordingWriter {
  base = 1000;
  override async write(batch: WriteBatch): Promise<WriteResult> {
    const r = await super.write(batch);
    return { ...r, revision: String(this.base + this.batches.length) };
  }
}

/**
 * A store with a revision counter that can lose a commit after its readers saw it (`loseNext`: the rows' revisions are
 * taken and shown, `seen`, then the commit is gone and the write fails as a closed connection does) or fail a write
 * cleanly (`failNext`). `rows`: each name's revision as stored.
 */
class LossyStore extends RecordingWriter {
  head = 1000;
  seen = 0;
  loseNext = false;
  failNext = false;
  advanceFails = 0;
  rows = new Map<string, number>();
  override async write(batch: WriteBatch): Promise<WriteResult> {
    const names = batch.upserts.filter(isPrepared).map((u) => u.cols.name);
    if (this.loseNext || this.failNext) {
      if (this.loseNext) this.seen = this.head + names.length;
      this.loseNext = this.failNext = false;
      throw new StorageError('Unavailable', 'connection closed', true);
    }
    const r = await super.write(batch);
    for (const n of names) this.rows.set(n, ++this.head);
    return { ...r, revision: String(this.head) };
  }
  /** A cleanResource deleting `n` rows, its commit lost after readers saw it when `lose`; answers the head. */
  async clean(n: number, lose: boolean): Promise<number> {
    if (lose) {
      this.seen = this.head + n;
      throw new StorageError('Unavailable', 'connection closed', true);
    }
    return (this.head += n);
  }
  async advanceRevision(to: string): Promise<string> {
    if (this.advanceFails > 0) {
      this.advanceFails--;
      throw new StorageError('Invalid', 'permission denied for table meta', false);
    }
    const found = this.head;
    this.head = Math.max(this.head, Number(to));
    return String(found);
  }
}
