// The write queue: coalescing, batching by size and delay, back-pressure, retry without loss, split on fatal errors.
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/lib/log.js';
import { StorageError } from '../../../src/storage/errors.js';
import type { DeleteKey, StorageWriter, UpsertObject, WriteResult } from '../../../src/storage/types.js';
import type { Action } from '../../../src/roles/synchro/coalesce.js';
import { WriteQueue, type WriteOwner } from '../../../src/roles/synchro/write-queue.js';
import { FakeClock, settle } from './fake-clock.js';

/** An in-memory writer that records each transaction and can be told to fail. */
class RecordingWriter implements Pick<StorageWriter, 'write'> {
  batches: { upserts: UpsertObject[]; deletes: DeleteKey[] }[] = [];
  failures: (Error | 'hang' | undefined)[] = [];
  poison = new Set<string>();
  async write(batch: { upserts: UpsertObject[]; deletes: DeleteKey[] }): Promise<WriteResult> {
    const f = this.failures.shift();
    if (f === 'hang') return new Promise<WriteResult>(() => undefined);
    if (f) throw f;
    if (batch.upserts.some((u) => this.poison.has(u.object.metadata.name))) throw new StorageError('Internal', 'bad object', false);
    this.batches.push(batch);
    return { written: batch.upserts.length, skipped: 0, deleted: batch.deletes.length, revision: String(this.batches.length) };
  }
  get names(): string[] {
    return this.batches.flatMap((b) => [...b.upserts.map((u) => `${u.object.metadata.name}@${u.object.metadata.resourceVersion}`), ...b.deletes.map((d) => `-${d.name}`)]);
  }
}

class Owner implements WriteOwner {
  readonly type = { group: '', version: 'v1', resource: 'pods' };
  readonly kind = 'Pod';
  rejectedKeys: string[] = [];
  constructor(readonly cluster: string) {}
  rejected(key: string): void {
    this.rejectedKeys.push(key);
  }
}

const obj = (name: string, rv: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', resourceVersion: rv } });

describe('WriteQueue', () => {
  let stop: AbortController;
  let running: Promise<void> | undefined;
  afterEach(async () => {
    stop?.abort();
    await running;
  });

  function setup(o: Partial<{ batchSize: number; maxEntries: number; maxBytes: number; flushDelayMs: number }> = {}) {
    const clock = new FakeClock();
    const writer = new RecordingWriter();
    const queue = new WriteQueue({
      writer: writer as unknown as StorageWriter, batchSize: o.batchSize ?? 1000, flushDelayMs: o.flushDelayMs ?? 5,
      maxEntries: o.maxEntries ?? 10_000, maxBytes: o.maxBytes ?? 1 << 30, logger: silentLogger(), clock, retry: { initialMs: 100, maxMs: 1000 },
      writeTimeoutMs: 5000,
    });
    stop = new AbortController();
    running = queue.start(stop.signal);
    const owner = new Owner('c1');
    const put = (name: string, rv: string, action: Action = 'Updated', o2: WriteOwner = owner) =>
      queue.enqueue({ owner: o2, key: `ns/${name}`, action, object: obj(name, rv), resourceVersion: rv, bytes: 100 });
    const del = (name: string, rv?: string) => queue.enqueue({ owner, key: `ns/${name}`, action: 'Deleted', resourceVersion: rv, bytes: 10 });
    return { clock, writer, queue, owner, put, del };
  }

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

  it('flushes full batches without waiting, in order of each key\'s latest event', async () => {
    const { clock, writer, put } = setup({ batchSize: 1000 });
    for (let i = 0; i < 2500; i++) await put(`p${i}`, String(i + 1));
    await put('p0', '9999');
    await settle();
    await clock.advance(5);
    await clock.advance(5);
    expect(writer.batches.map((b) => b.upserts.length)).toEqual([1000, 1000, 500]);
    // p0 was re-queued behind everyone by its newer event.
    expect(writer.names.at(-1)).toBe('p0@9999');
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
    expect(writer.batches.flatMap((b) => b.upserts.map((u) => u.cluster))).toEqual(['c2']);
  });

  it('drains what is pending on shutdown', async () => {
    const { writer, put } = setup({ flushDelayMs: 1000 });
    await put('a', '1');
    await put('b', '1');
    stop.abort();
    await running;
    expect(writer.names).toEqual(['a@1', 'b@1']);
  });
});
