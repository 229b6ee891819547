// The SQLite writer thread: writes run off the event loop, a thread that dies fails only what it had not committed
// (and the next write starts another), close waits for what was sent, and objects are stored exactly as rendered.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/lib/log.js';
import { renderTemplate, revisionText, stampRevision } from '../../src/storage/object-columns.js';
import { openStorage } from '../../src/storage/open.js';
import { openConnection } from '../../src/storage/sqlite/connection.js';
import { WriterThread } from '../../src/storage/sqlite/writer-thread.js';
import { packWrite, unpackWrite } from '../../src/storage/sqlite/writer-ops.js';
import { collapseBatch } from '../../src/storage/write-plan.js';
import type { Storage, UpsertObject } from '../../src/storage/types.js';
import { drain, pod, PODS } from './fixtures.js';

const dirs: string[] = [];
const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'cp-writer-thread-'));
  dirs.push(d);
  return d;
}

async function migrated(file: string, sqliteWrites?: 'thread' | 'inline'): Promise<Storage> {
  const s = await openStorage({ url: `sqlite:${file}` }, { logger: silentLogger(), ...(sqliteWrites ? { sqliteWrites } : {}) });
  opened.push(s);
  await s.migrate();
  return s;
}

function pods(n: number, prefix: string): UpsertObject[] {
  return Array.from({ length: n }, (_, i) => pod({ cluster: 'c1', namespace: 'ns', name: `${prefix}-${i}`, rv: String(i + 1), labels: { app: 'a', i: String(i) }, fields: { spec: { blob: 'x'.repeat(2000) } } }));
}

describe('sqlite writer thread', () => {
  /** Event-loop turns taken while a 10,000-pod batch is written. */
  async function turnsDuringWrite(s: Storage): Promise<number> {
    await s.write({ upserts: pods(10, 'warm'), deletes: [] });
    let turns = 0;
    let done = false;
    const spin = (): void => {
      if (done) return;
      turns++;
      setImmediate(spin);
    };
    setImmediate(spin);
    const r = await s.write({ upserts: pods(10_000, 'big'), deletes: [] });
    done = true;
    expect(r.written).toBe(10_000);
    return turns;
  }

  it('the event loop keeps turning while a large batch is written', async () => {
    expect(await turnsDuringWrite(await migrated(join(tempDir(), 'db.sqlite')))).toBeGreaterThan(10);
  });

  it('with writes inline (the apiserver role) a batch runs on the event loop, from start to end', async () => {
    expect(await turnsDuringWrite(await migrated(join(tempDir(), 'db.sqlite'), 'inline'))).toBeLessThanOrEqual(1);
  });

  it('a thread that dies fails the writes it had not committed as Unavailable (retryable); the next write starts another', async () => {
    const dir = tempDir();
    const file = join(dir, 'db.sqlite');
    const s = await migrated(file);
    await s.write({ upserts: pods(3, 'before'), deletes: [] });
    // A better-sqlite3 whose second IMMEDIATE transaction ends its thread, as a crash would.
    const real = createRequire(import.meta.url).resolve('better-sqlite3');
    const module = join(dir, 'dying-sqlite.cjs');
    writeFileSync(module, `
const Real = require(${JSON.stringify(real)});
let n = 0;
module.exports = class extends Real {
  transaction(fn) {
    const t = super.transaction(fn);
    const w = (...a) => t(...a);
    w.immediate = (...a) => { if (++n === 2) process.exit(3); return t.immediate(...a); };
    return w;
  }
};`);
    const thread = new WriterThread({ file, busyTimeoutMs: 1000, logger: silentLogger(), module });
    opened.push(thread);
    const batch = (prefix: string) => ({ op: 'write' as const, batch: collapseBatch({ upserts: pods(2, prefix), deletes: [] }), now: Date.now() });
    expect(await thread.call(batch('first'))).toMatchObject({ written: 2 });
    const lost = thread.call(batch('lost'));
    const queued = thread.call(batch('queued'));
    for (const p of [lost, queued]) await expect(p).rejects.toMatchObject({ code: 'Unavailable', retryable: true });
    expect(await thread.call(batch('after'))).toMatchObject({ written: 2 });
    const stored = (await drain(await s.list({ types: PODS }))).map((r) => r.name);
    expect(stored.sort()).toEqual(['after-0', 'after-1', 'before-0', 'before-1', 'before-2', 'first-0', 'first-1']);
  });

  it('close waits for the writes already sent, then leaves no WAL behind', async () => {
    const file = join(tempDir(), 'db.sqlite');
    const s = await openStorage({ url: `sqlite:${file}` }, { logger: silentLogger() });
    await s.migrate();
    const writes = [s.write({ upserts: pods(2000, 'a'), deletes: [] }), s.write({ upserts: pods(2000, 'b'), deletes: [] })];
    const closing = s.close();
    expect((await Promise.all(writes)).map((r) => r.written)).toEqual([2000, 2000]);
    await closing;
    await expect(s.write({ upserts: pods(1, 'late'), deletes: [] })).rejects.toMatchObject({ code: 'Unavailable' });
    const db = openConnection(file, 1000, 'reader');
    try {
      expect(db.prepare('SELECT count(*) AS n FROM resources').get()).toEqual({ n: 4000 });
    } finally {
      db.close();
    }
  });
});

describe('stored texts cross to the thread as bytes', () => {
  const odd = { latin: 'café', cjk: '集群', emoji: '🚀 ok', esc: 'quote " backslash \\ tab \t', lone: '\ud800' };

  it('packWrite moves every text into one buffer; unpackWrite gives back the same bytes, multi-byte characters included', () => {
    const ups = [pod({ cluster: 'c', namespace: 'ns', name: 'a', rv: '1', labels: { l: 'é' }, annotations: odd }), pod({ cluster: 'c', namespace: 'ns', name: 'b', rv: '2' })];
    const batch = collapseBatch({ upserts: ups, deletes: [{ cluster: 'c', group: '', version: 'v1', resource: 'pods', namespace: 'ns', name: 'gone' }] });
    const packed = packWrite({ op: 'write', batch, now: 1 });
    const templates = batch.ops.flatMap((o) => (o.op === 'upsert' ? [o.template] : []));
    expect(packed.buffer.byteLength).toBe(templates.reduce((n, t) => n + t.bytes, 0));
    const back = unpackWrite(packed).batch.ops;
    expect(back.map((o) => o.op)).toEqual(['upsert', 'upsert', 'delete']);
    back.forEach((o, i) => {
      if (o.op !== 'upsert') return;
      const t = templates[i]!;
      expect(Buffer.from(o.template.head).toString('utf8')).toBe(Buffer.from(t.head, 'utf8').toString('utf8'));
      expect(Buffer.from(o.template.tail).toString('utf8')).toBe(t.tail);
      expect(o.template.bytes).toBe(t.bytes);
    });
  });

  it('the thread stores TEXT, byte for byte what an inline write stores, that SQLite JSON functions read', async () => {
    const ups = (cluster: string) => [
      pod({ cluster, namespace: 'ns', name: 'a', rv: '1', labels: { l: 'é' }, annotations: odd }),
      pod({ cluster, namespace: 'ns', name: 'b', rv: '2', fields: { spec: { s: '集群🚀' } } }),
    ];
    const file = join(tempDir(), 'db.sqlite');
    const threaded = await migrated(file, 'thread');
    const threadedOrigin = BigInt(await threaded.currentRevision());
    await threaded.write({ upserts: ups('c'), deletes: [] });
    await threaded.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'b', rv: '3', fields: { spec: { s: '集群🚀 again' } } })], deletes: [] });
    const file2 = join(tempDir(), 'db.sqlite');
    const inline = await migrated(file2, 'inline');
    const inlineOrigin = BigInt(await inline.currentRevision());
    await inline.write({ upserts: ups('c'), deletes: [] });
    await inline.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'b', rv: '3', fields: { spec: { s: '集群🚀 again' } } })], deletes: [] });
    const read = (f: string) => {
      const db = openConnection(f, 1000, 'reader');
      try {
        return db.prepare(`SELECT name, typeof(object) AS t, object, size, json_extract(object, '$.metadata.annotations.emoji') AS emoji FROM resources ORDER BY name`).all();
      } finally {
        db.close();
      }
    };
    type Row = { name: string; t: string; object: string; size: number; emoji: string | null };
    // The stores started at different revisions (revision-origin.ts): compare the revisions stamped since each one's.
    const sinceOrigin = (rs: Row[], origin: bigint): Row[] =>
      rs.map((r) => ({ ...r, object: r.object.replace(/"resourceVersion":"(\d+)"/, (_, v: string) => `"resourceVersion":"${BigInt(v) - origin}"`) }));
    const rows = read(file) as Row[];
    expect(sinceOrigin(rows, threadedOrigin)).toEqual(sinceOrigin(read(file2) as Row[], inlineOrigin));
    expect(rows.map((r) => r.t)).toEqual(['text', 'text']);
    expect(rows[0]!.emoji).toBe('🚀 ok');
    for (const r of rows) expect(r.size).toBe(Buffer.byteLength(r.object));
    expect((JSON.parse(rows[1]!.object) as { metadata: { resourceVersion: string }; spec: { s: string } })).toMatchObject({ metadata: { resourceVersion: String(threadedOrigin + 3n) }, spec: { s: '集群🚀 again' } });
  });
});

describe('sqlite planner statistics', () => {
  /** The rows the statistics of `file` count (what the last ANALYZE saw). */
  const rowsInStatistics = (file: string): number => {
    const db = openConnection(file, 1000, 'reader');
    try {
      const r = db.prepare(`SELECT stat FROM sqlite_stat1 WHERE tbl = 'resources' AND idx = 'resources_owner'`).get() as { stat: string } | undefined;
      return Number(r?.stat.split(' ')[0] ?? 0);
    } finally {
      db.close();
    }
  };
  const inCluster = (cluster: string, from: number, n: number): UpsertObject[] =>
    Array.from({ length: n }, (_, i) => pod({ cluster, namespace: 'ns', name: `p${from + i}` }));

  it.each(['thread', 'inline'] as const)('a cluster added to a larger store refreshes them once it has 1,000 rows (%s writes)', async (mode) => {
    const file = join(tempDir(), 'stats.db');
    const s = await migrated(file, mode);
    const rows = (): number => rowsInStatistics(file);
    // Due at 1,000, 2,000 and 4,000 rows (one that comes too soon after the last runs a little later); the next for
    // the store at 8,000.
    for (let b = 0; b < 4; b++) await s.write({ upserts: ['a', 'b', 'c', 'd'].flatMap((c) => inCluster(c, b * 250, 250)), deletes: [] });
    await vi.waitFor(() => expect(rows()).toBe(4000), { timeout: 5000, interval: 20 });
    await s.write({ upserts: inCluster('new', 0, 999), deletes: [] });
    expect(rows()).toBe(4000);
    await s.write({ upserts: inCluster('new', 999, 1), deletes: [] });
    await vi.waitFor(() => expect(rows()).toBe(5000), { timeout: 5000, interval: 20 });
  });

  it('a refresh due but waiting for its turn when the store closes runs before it closes', async () => {
    const file = join(tempDir(), 'stats.db');
    const s = await migrated(file);
    // Due at 1,000 rows, and at 2,000 again right after: that one waits nineteen times the first one's length.
    await s.write({ upserts: inCluster('a', 0, 1000), deletes: [] });
    await s.write({ upserts: inCluster('a', 1000, 1000), deletes: [] });
    await s.close();
    expect(rowsInStatistics(file)).toBe(2000);
  });
});

describe('stored object templates', () => {
  it('the stored text is the object with the revision as metadata.resourceVersion, whatever text the object holds', () => {
    const tricky = ['\u0000rv0\u0000', '"\u0000rv0\u0000"', '\u0000rv1\u0000'];
    const u = pod({ cluster: 'c', namespace: 'ns', name: 'p', rv: '42', labels: { a: tricky[0]! }, annotations: { b: tricky[1]!, c: tricky[2]! }, fields: { spec: { s: tricky } } });
    const t = renderTemplate(u, '42');
    const json = stampRevision(t, 1234);
    const parsed = JSON.parse(json) as { metadata: { resourceVersion: string; labels: Record<string, string>; annotations: Record<string, string> }; spec: { s: string[] } };
    expect(parsed.metadata.resourceVersion).toBe('1234');
    expect(parsed.metadata.labels.a).toBe(tricky[0]);
    expect(parsed.metadata.annotations.b).toBe(tricky[1]);
    expect(parsed.metadata.annotations.c).toBe(tricky[2]);
    expect(parsed.metadata.annotations['shadow.clusterpedia.io/resource-version']).toBe('42');
    expect(parsed.spec.s).toEqual(tricky);
    // The same text as rendering the object with its revision directly, key order included.
    const o = u.object;
    const direct = JSON.stringify({ ...o, metadata: { ...o.metadata, resourceVersion: '1234', annotations: { ...o.metadata.annotations, 'shadow.clusterpedia.io/resource-version': '42' } } });
    expect(json).toBe(direct);
    expect(t.bytes + revisionText(1234).length).toBe(Buffer.byteLength(direct));
  });
});
