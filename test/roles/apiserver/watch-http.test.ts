// Watch over HTTP at the apiserver (API.md §4 Watch): initial events ended by a bookmark (sendInitialEvents),
// periodic bookmarks, timeoutSeconds, and 410 Expired for a resourceVersion older than the change-log window.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { silentLogger } from '../../../src/lib/log.js';
import { openStorage } from '../../../src/storage/open.js';
import type { Storage } from '../../../src/storage/types.js';
import { startTestApiserver, type TestApiserver } from '../../support/apiserver.js';
import { healthyStatus, pod } from '../../support/fixtures.js';
import { openWatch } from '../../support/watch-stream.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';
const RETAINED = 5;

let storage: Storage;
let api: TestApiserver;
let rv = 100;
const put = (name: string): Promise<unknown> => storage.write({ upserts: [pod('c1', 'default', name, { rv: String(++rv) })], deletes: [] });

beforeAll(async () => {
  storage = await openStorage({ url: 'sqlite::memory:' }, { logger: silentLogger(), changeLogRevisions: RETAINED });
  await storage.migrate();
  await storage.putClusterStatus('c1', healthyStatus('c1', true));
  await put('a');
  await put('b');
  api = await startTestApiserver(storage, (o) => {
    o.watch.bookmarkIntervalMs = 300;
  });
});

afterAll(async () => {
  await api?.stop();
  await storage?.close();
});

it('sendInitialEvents: every object ADDED, then a bookmark marking their end at the list revision, then live changes', async () => {
  const w = await openWatch(`${api.base}${P}/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
  try {
    const initial = [await w.next(), await w.next()];
    expect(initial.map((e) => `${e.type} ${e.object.metadata.name}`).sort()).toEqual(['ADDED a', 'ADDED b']);
    const end = await w.next();
    expect(end).toMatchObject({ type: 'BOOKMARK', object: { kind: 'Pod', apiVersion: 'v1', metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } } } });
    expect(end.object.metadata.resourceVersion).toBe(await storage.currentRevision());
    await put('c');
    let live = await w.next();
    while (live.type === 'BOOKMARK') live = await w.next();
    expect(live).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'c' } } });
    expect(BigInt(live.object.metadata.resourceVersion)).toBeGreaterThan(BigInt(end.object.metadata.resourceVersion));
  } finally {
    w.close();
  }
});

it('allowWatchBookmarks: a quiet watch still gets bookmarks carrying the current revision', async () => {
  const head = await storage.currentRevision();
  const w = await openWatch(`${api.base}${P}/api/v1/pods?watch=true&resourceVersion=${head}&allowWatchBookmarks=true`);
  try {
    for (let i = 0; i < 2; i++) {
      const e = await w.next(5_000);
      expect(e).toMatchObject({ type: 'BOOKMARK', object: { kind: 'Pod', apiVersion: 'v1' } });
      expect(e.object.metadata.resourceVersion).toBe(head);
    }
  } finally {
    w.close();
  }
});

it('timeoutSeconds ends the stream, cleanly, about then', async () => {
  const started = Date.now();
  const w = await openWatch(`${api.base}${P}/api/v1/pods?watch=true&resourceVersion=${await storage.currentRevision()}&timeoutSeconds=1`);
  try {
    expect(await w.ended(10_000)).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  } finally {
    w.close();
  }
});

it('a resourceVersion older than the change-log window gets an ERROR event with a 410 Expired Status, and the end', async () => {
  const old = await storage.currentRevision();
  for (let i = 0; i < RETAINED * 3; i++) await put(`churn-${i}`);
  await storage.compact();
  const w = await openWatch(`${api.base}${P}/api/v1/pods?watch=true&resourceVersion=${old}`);
  try {
    const e = await w.next();
    expect(e).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
    expect(await w.ended(5_000)).toBe(true);
  } finally {
    w.close();
  }
  // A resourceVersion inside the window still resumes.
  const recent = await storage.currentRevision();
  const ok = await openWatch(`${api.base}${P}/api/v1/pods?watch=true&resourceVersion=${recent}`);
  try {
    await put('after');
    expect(await ok.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'after' } } });
  } finally {
    ok.close();
  }
});
