// WATCH over HTTP: event order, initial events, bookmarks, timeoutSeconds, selector transitions, 410 ERROR, initial-events-end, resume.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulatedCluster, type SimCluster } from '../../src/sim/index.js';
import { call, openWatch, type ListBody, type WatchReader } from './helpers.js';

let c: SimCluster;
const open: WatchReader[] = [];
beforeEach(async () => {
  c = await startSimulatedCluster({ pods: 40, seed: 3, bookmarkIntervalMs: 100 });
});
afterEach(async () => {
  for (const w of open.splice(0)) w.close();
  await c.stop();
});

async function watch(path: string): Promise<WatchReader> {
  const w = await openWatch(c, path);
  open.push(w);
  return w;
}

const cm = (name: string, labels: Record<string, string> = {}): { apiVersion: string; kind: string; metadata: { name: string; namespace: string; labels: Record<string, string> }; data: Record<string, string> } =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels }, data: { a: '1' } });

describe('watch', () => {
  it('streams ADDED, MODIFIED, DELETED in order with increasing resourceVersions and kind/apiVersion set', async () => {
    const rv = c.revision;
    const w = await watch(`/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}`);
    expect(w.status).toBe(200);
    c.store.create('configmaps', cm('w1'));
    c.store.patch('configmaps', 'default', 'w1', { data: { a: '2' } });
    c.store.delete('configmaps', 'default', 'w1');
    const evs = [await w.next(), await w.next(), await w.next()];
    expect(evs.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(evs.map((e) => Number(e.object.metadata.resourceVersion))).toEqual([rv + 1, rv + 2, rv + 3]);
    expect(evs[0]?.object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1' });
  });

  it('without resourceVersion (or 0) first sends the current state as ADDED', async () => {
    const w = await watch('/api/v1/pods?watch=1');
    for (let i = 0; i < 40; i++) expect((await w.next()).type).toBe('ADDED');
    await expect(w.next(300)).rejects.toThrow('timed out');
    const w0 = await watch('/api/v1/namespaces/kube-system/pods?watch=true&resourceVersion=0');
    const n = c.store.list('pods', 'kube-system').length;
    for (let i = 0; i < n; i++) expect((await w0.next()).type).toBe('ADDED');
  });

  it('sends BOOKMARKs with only the resourceVersion when allowed', async () => {
    const w = await watch(`/api/v1/pods?watch=true&resourceVersion=${c.revision}&allowWatchBookmarks=true`);
    const ev = await w.next(2000);
    expect(ev.type).toBe('BOOKMARK');
    expect(ev.object).toEqual({ kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: String(c.revision) } });
  });

  it('ends the stream after timeoutSeconds', async () => {
    const w = await watch(`/api/v1/pods?watch=true&resourceVersion=${c.revision}&timeoutSeconds=1`);
    const started = Date.now();
    await w.ended;
    expect(Date.now() - started).toBeGreaterThan(800);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('sends a bookmark 2 s before timeoutSeconds, however long the bookmark interval, as kube-apiserver does', async () => {
    const quiet = await startSimulatedCluster({ pods: 1, seed: 3, bookmarkIntervalMs: 60_000 });
    try {
      const started = Date.now();
      const w = await openWatch(quiet, `/api/v1/pods?watch=true&resourceVersion=${quiet.revision}&allowWatchBookmarks=true&timeoutSeconds=3`);
      try {
        const ev = await w.next(2500);
        expect(ev).toMatchObject({ type: 'BOOKMARK', object: { metadata: { resourceVersion: String(quiet.revision) } } });
        expect(Date.now() - started).toBeGreaterThan(800);
        await w.ended;
        expect(Date.now() - started).toBeGreaterThan(2800);
      } finally {
        w.close();
      }
    } finally {
      await quiet.stop();
    }
  });

  it('turns selector transitions into ADDED and DELETED, like kube', async () => {
    c.store.create('configmaps', cm('sel', { color: 'red' }));
    const w = await watch(`/api/v1/configmaps?watch=true&resourceVersion=${c.revision}&labelSelector=color%3Dblue`);
    c.store.patch('configmaps', 'default', 'sel', { metadata: { labels: { color: 'blue' } } });
    c.store.patch('configmaps', 'default', 'sel', { data: { a: 'x' } });
    c.store.patch('configmaps', 'default', 'sel', { metadata: { labels: { color: 'green' } } });
    const evs = [await w.next(), await w.next(), await w.next()];
    expect(evs.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(evs[2]?.object.metadata.labels).toEqual({ color: 'blue' });
    expect(evs[2]?.object.metadata.resourceVersion).toBe(String(c.revision));
  });

  it('answers an old resourceVersion with an ERROR event carrying a 410 Expired Status', async () => {
    const rv = c.revision;
    c.store.create('configmaps', cm('x1'));
    c.faults.compact();
    const w = await watch(`/api/v1/configmaps?watch=true&resourceVersion=${rv}`);
    expect(w.status).toBe(200);
    const ev = await w.next();
    expect(ev).toEqual({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `too old resource version: ${rv} (${rv + 1})`, reason: 'Expired', code: 410 } });
    await w.ended;
  });

  it('keeps the last K events: resuming inside the window works, before it is 410', async () => {
    await c.stop();
    c = await startSimulatedCluster({ pods: 5, windowSize: 3 });
    const rv = c.revision;
    for (let i = 0; i < 5; i++) c.store.create('configmaps', cm(`k${i}`));
    const inside = await watch(`/api/v1/configmaps?watch=true&resourceVersion=${rv + 2}`);
    expect((await inside.next()).object.metadata.name).toBe('k2');
    const outside = await watch(`/api/v1/configmaps?watch=true&resourceVersion=${rv + 1}`);
    expect((await outside.next()).type).toBe('ERROR');
  });

  it('sendInitialEvents=true streams the state then a bookmark annotated k8s.io/initial-events-end', async () => {
    const n = c.store.list('pods', 'kube-system').length;
    const w = await watch('/api/v1/namespaces/kube-system/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true');
    const evs = await w.until((e) => e.type === 'BOOKMARK');
    expect(evs.filter((e) => e.type === 'ADDED')).toHaveLength(n);
    expect(evs.at(-1)?.object.metadata).toEqual({ resourceVersion: String(c.revision), annotations: { 'k8s.io/initial-events-end': 'true' } });
    expect((await call(c, '/api/v1/pods?watch=true&sendInitialEvents=true')).status).toBe(422);
    expect((await call(c, '/api/v1/pods?watch=true&resourceVersionMatch=NotOlderThan')).status).toBe(422);
  });

  it('a client resuming after a dropped watch loses nothing', async () => {
    const list = await call<ListBody>(c, '/api/v1/configmaps');
    const seen = new Map<string, string>(list.body.items.map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, o.metadata.resourceVersion ?? '']));
    let rv = list.body.metadata.resourceVersion;
    for (let round = 0; round < 3; round++) {
      const w = await watch(`/api/v1/configmaps?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true`);
      for (let i = 0; i < 4; i++) c.store.create('configmaps', cm(`r${round}-${i}`));
      c.store.delete('configmaps', 'default', `r${round}-0`);
      c.faults.dropWatches();
      // Changes made while no watch is open must arrive on resume.
      c.store.create('configmaps', cm(`gap${round}`));
      await w.ended.catch(() => undefined);
      for (;;) {
        const ev = await w.next(500).catch(() => undefined);
        if (!ev) break;
        rv = ev.object.metadata.resourceVersion ?? rv;
        const key = `${ev.object.metadata.namespace}/${ev.object.metadata.name}`;
        if (ev.type === 'DELETED') seen.delete(key);
        else if (ev.type !== 'BOOKMARK') seen.set(key, ev.object.metadata.resourceVersion ?? '');
      }
    }
    const last = await watch(`/api/v1/configmaps?watch=true&resourceVersion=${rv}`);
    for (;;) {
      const ev = await last.next(300).catch(() => undefined);
      if (!ev) break;
      const key = `${ev.object.metadata.namespace}/${ev.object.metadata.name}`;
      if (ev.type === 'DELETED') seen.delete(key);
      else seen.set(key, ev.object.metadata.resourceVersion ?? '');
    }
    const truth = new Map(c.snapshot('configmaps').map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, o.metadata.resourceVersion ?? '']));
    expect(seen).toEqual(truth);
  });

  it('also serves the legacy /watch/ paths and watches of custom resources at their served version', async () => {
    const w = await watch(`/api/v1/watch/namespaces/default/configmaps?resourceVersion=${c.revision}`);
    c.store.create('configmaps', cm('legacy'));
    expect((await w.next()).object.metadata.name).toBe('legacy');
    const cr = await watch(`/apis/stable.example.com/v1beta1/crontabs?watch=true&resourceVersion=${c.revision}`);
    const tab = c.store.list('crontabs.stable.example.com')[0];
    c.store.patch('crontabs.stable.example.com', tab?.metadata.namespace, tab?.metadata.name ?? '', { spec: { replicas: 9 } });
    expect((await cr.next()).object).toMatchObject({ apiVersion: 'stable.example.com/v1beta1', kind: 'CronTab', spec: { replicas: 9 } });
  });
  describe('held delivery (a lagging watch cache)', () => {
    it('commits at once but gives watchers the changes only as they are released, in order, each once', async () => {
      const start = c.revision;
      const w = await watch(`/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${start}&allowWatchBookmarks=true`);
      c.store.holdDelivery();
      for (let i = 0; i < 5; i++) c.store.create('configmaps', cm(`held-${i}`));
      // Lists and gets see the commits; the watch sees nothing, and its bookmarks do not run ahead of it.
      expect(c.store.get('configmaps', 'default', 'held-4')).toBeDefined();
      expect(c.store.heldChanges).toBe(5);
      expect(c.store.deliveredRevision).toBe(start);
      const bm = await w.next(2000);
      expect(bm.type).toBe('BOOKMARK');
      expect(bm.object.metadata.resourceVersion).toBe(String(start));
      // A watch opened now from the old revision replays only what was delivered: nothing yet.
      const late = await watch(`/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${start}`);
      expect(c.store.releaseDelivery(2).map((e) => e.key)).toEqual(['default/held-0', 'default/held-1']);
      expect(c.store.deliveredRevision).toBe(start + 2);
      c.store.resumeDelivery();
      c.store.create('configmaps', cm('live'));
      for (const r of [w, late]) {
        const evs = await r.until((e) => e.object.metadata.name === 'live', 3000);
        const added = evs.filter((e) => e.type === 'ADDED');
        expect(added.map((e) => e.object.metadata.name)).toEqual(['held-0', 'held-1', 'held-2', 'held-3', 'held-4', 'live']);
        expect(added.map((e) => Number(e.object.metadata.resourceVersion))).toEqual([1, 2, 3, 4, 5, 6].map((k) => start + k));
      }
    });

    it('a watch from a revision the watchers have not reached yet skips the held changes up to it', async () => {
      c.store.holdDelivery();
      c.store.create('configmaps', cm('before-list'));
      // A client lists (it sees the commit) and watches from the list's revision.
      const listed = await call<ListBody>(c, '/api/v1/namespaces/default/configmaps');
      const rv = listed.body.metadata.resourceVersion;
      expect(Number(rv)).toBe(c.revision);
      const w = await watch(`/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true`);
      expect((await w.next(2000)).object.metadata.resourceVersion).toBe(rv);
      c.store.create('configmaps', cm('after-list'));
      c.store.resumeDelivery();
      const ev = await w.next(2000);
      expect([ev.type, ev.object.metadata.name]).toEqual(['ADDED', 'after-list']);
    });
  });
});
