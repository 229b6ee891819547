// Watch bookmarks: never ahead of the events a watch has sent (a client resumes from a bookmark's resourceVersion, so
// one that named a revision whose events were still queued would lose them at the next reconnect), and one shortly
// before the watch's deadline, so that a client re-watching then resumes from where the watch ended.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { get, type IncomingMessage } from 'node:http';
import type { Storage } from '../../../src/storage/types.js';
import { serveStore, startTestApiserver, type ServedStore, type TestApiserver } from '../../support/apiserver.js';
import { pod } from '../../support/fixtures.js';

let served: ServedStore;
let storage: Storage;
let api: TestApiserver;

beforeAll(async () => {
  served = await serveStore([pod('c1', 'default', 'seed')], { c1: true }, 'sqlite::memory:', (o) => {
    o.watch.bookmarkIntervalMs = 1;
    o.limits.watchBufferBytes = 256 * 1024 * 1024;
  });
  ({ storage, api } = served);
});

afterAll(async () => {
  await served?.stop();
});

/** Writes `n` pods of ~20 KB each, named `<prefix>-<i>`, in one batch. */
async function writeBig(prefix: string, n: number): Promise<void> {
  const padding = 'x'.repeat(20_000);
  await storage.write({
    upserts: Array.from({ length: n }, (_, i) => {
      const p = pod('c1', 'default', `${prefix}-${i}`);
      (p.object.metadata.annotations as Record<string, string>).padding = padding;
      return p;
    }),
    deletes: [],
  });
}

it('a bookmark sent while a slow client was still being sent a batch names no revision of the changes queued behind it', async () => {
  const from = await storage.currentRevision();
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    get(`${api.resources}/api/v1/pods?watch=true&allowWatchBookmarks=true&resourceVersion=${from}&timeoutSeconds=20`, resolve).on('error', reject);
  });
  expect(res.statusCode).toBe(200);
  res.pause();
  // A batch far beyond the socket buffers: the server stops in the middle of it, waiting for the client to read…
  await writeBig('first', 600);
  await new Promise((r) => setTimeout(r, 500));
  // …while more changes reach its feed.
  await writeBig('second', 20);
  const last = await storage.currentRevision();
  await new Promise((r) => setTimeout(r, 300));

  // Read everything up to the last change's event.
  const events: { type: string; rv: bigint; name: string }[] = [];
  let buf = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the last change's event did not come: ${events.length} events`)), 15_000);
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const e = JSON.parse(buf.slice(0, nl)) as { type: string; object: { metadata: { name?: string; resourceVersion: string } } };
        buf = buf.slice(nl + 1);
        events.push({ type: e.type, rv: BigInt(e.object.metadata.resourceVersion), name: e.object.metadata.name ?? '' });
        if (e.type !== 'BOOKMARK' && e.object.metadata.resourceVersion === last) {
          clearTimeout(timer);
          resolve();
        }
      }
    });
    res.resume();
  });
  res.destroy();

  expect(events.filter((e) => e.type === 'ADDED')).toHaveLength(620);
  expect(events.some((e) => e.type === 'BOOKMARK')).toBe(true);
  // Every event's revision is above every bookmark before it.
  let bookmarked = 0n;
  const behind: string[] = [];
  for (const e of events) {
    if (e.type === 'BOOKMARK') bookmarked = e.rv > bookmarked ? e.rv : bookmarked;
    else if (e.rv <= bookmarked) behind.push(`${e.name} at ${e.rv} after a bookmark at ${bookmarked}`);
  }
  expect(behind).toEqual([]);
});

it('a watch sends a bookmark shortly before its deadline, however long the bookmark interval', async () => {
  const quiet = await startTestApiserver(storage);
  try {
    const from = await storage.currentRevision();
    const started = Date.now();
    const res = await fetch(`${quiet.resources}/api/v1/pods?watch=true&allowWatchBookmarks=true&resourceVersion=${from}&timeoutSeconds=4`);
    await writeBig('late', 1);
    const head = await storage.currentRevision();
    const events: { type: string; rv: string; atMs: number }[] = [];
    const text = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const { done, value } = await text.read();
      if (done) break;
      buf += value;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const e = JSON.parse(buf.slice(0, nl)) as { type: string; object: { metadata: { resourceVersion: string } } };
        buf = buf.slice(nl + 1);
        events.push({ type: e.type, rv: e.object.metadata.resourceVersion, atMs: Date.now() - started });
      }
    }
    const endedMs = Date.now() - started;
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
    // At the head, about 2 s before the end: the client re-watches from there.
    expect(events[1]!.rv).toBe(head);
    expect(endedMs - events[1]!.atMs).toBeGreaterThan(1_000);
    expect(events[1]!.atMs).toBeGreaterThan(1_000);
  } finally {
    await quiet.stop();
  }
});
