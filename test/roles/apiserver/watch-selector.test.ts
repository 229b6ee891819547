// A watch with a label or field selector reports objects entering it as ADDED and leaving it as DELETED, as
// kube-apiserver's watch cache does, so that a label-selected informer or `kubectl get -w -l` drops an object whose
// label changed instead of keeping it forever. Both backends, both ways a watch starts.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError } from '../../../src/storage/errors.js';
import type { Storage } from '../../../src/storage/types.js';
import { serveStore, type ServedStore } from '../../support/apiserver.js';
import { pod } from '../../support/fixtures.js';
import { freshPostgresDatabase } from '../../support/postgres.js';
import { openWatch } from '../../support/watch-stream.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';

function contract(backend: string, url: () => Promise<{ url: string; drop: () => Promise<void> }>): void {
  describe(backend, () => {
    let served: ServedStore;
    let storage: Storage;
    let drop: (() => Promise<void>) | undefined;
    let rv = 1000;
    /** Writes a pod of cluster c1, namespace sel, as its member would: each write a newer resourceVersion. */
    const put = (name: string, labels: Record<string, string>, phase = 'Running'): Promise<unknown> =>
      storage.write({ upserts: [pod('c1', 'sel', name, { labels, phase, rv: String(++rv) })], deletes: [] });
    const remove = (name: string): Promise<unknown> =>
      storage.write({ upserts: [], deletes: [{ cluster: 'c1', group: '', version: 'v1', resource: 'pods', namespace: 'sel', name }] });

    beforeAll(async () => {
      const target = await url();
      drop = target.drop;
      served = await serveStore([], { c1: true }, target.url);
      storage = served.storage;
    });

    afterAll(async () => {
      await served?.stop();
      await drop?.();
    });

    for (const start of ['from a resourceVersion', 'with its initial state'] as const) {
      it(`labelSelector, ${start}: entering is ADDED, changing inside is MODIFIED, leaving is DELETED, outside is silent`, async () => {
        const tag = start.startsWith('from') ? 'rv' : 'init';
        const [a, b, c] = [`${tag}-a`, `${tag}-b`, `${tag}-c`];
        await put(a, { app: tag });
        await put(b, { app: 'other' });
        await put(c, { app: 'other' });
        const selector = `labelSelector=${encodeURIComponent(`app=${tag}`)}`;
        const w = await openWatch(start.startsWith('from')
          ? `${served.api.base}${P}/api/v1/namespaces/sel/pods?watch=true&${selector}&resourceVersion=${await storage.currentRevision()}`
          : `${served.api.base}${P}/api/v1/namespaces/sel/pods?watch=true&${selector}`);
        try {
          if (tag === 'init') expect(await w.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: a } } });
          await put(b, { app: tag });
          expect(await w.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: b } } });
          await put(a, { app: tag, extra: 'yes' });
          expect(await w.next()).toMatchObject({ type: 'MODIFIED', object: { metadata: { name: a, labels: { extra: 'yes' } } } });
          await put(a, { app: 'other' });
          expect(await w.next()).toMatchObject({ type: 'DELETED', object: { metadata: { name: a, labels: { app: 'other' } } } });
          // Changes outside the selector, and the deletion of an object that left it, are not the client's business.
          await put(a, { app: 'other', again: 'yes' });
          await put(c, { app: 'other', again: 'yes' });
          await remove(a);
          await remove(b);
          expect(await w.next()).toMatchObject({ type: 'DELETED', object: { metadata: { name: b } } });
          // An object that comes back into the selector is new to the client again.
          await put(c, { app: tag });
          expect(await w.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: c } } });
        } finally {
          w.close();
        }
      });
    }

    it('from an older resourceVersion: an object that left the selector since is DELETED, one that entered ADDED, one that changed inside MODIFIED', async () => {
      const app = { app: 'h' };
      const other = { app: 'h-other' };
      for (const n of ['h-a', 'h-c', 'h-e', 'h-k']) await put(n, app);
      for (const n of ['h-b', 'h-d']) await put(n, other);
      const before = await storage.currentRevision();
      // All of this happens before the client, holding `before`, watches again (an informer reconnecting).
      await put('h-a', other); // left
      await put('h-b', app); // entered
      await put('h-c', app, 'Succeeded'); // changed inside
      await put('h-d', { ...other, x: 'y' }); // changed outside
      await put('h-f', app); // new, inside
      await put('h-g', other); // new, outside
      await put('h-e', other); // left, then deleted: the client still holds it
      await remove('h-e');
      await put('h-k', other); // left and came back: still held, changed
      await put('h-k', app);
      const selected = (extra = ''): string =>
        `${served.api.base}${P}/api/v1/namespaces/sel/pods?watch=true&labelSelector=app%3Dh${extra}&resourceVersion=${before}`;
      const w = await openWatch(selected());
      try {
        const seen: string[] = [];
        for (let i = 0; i < 6; i++) {
          const e = await w.next();
          seen.push(`${e.type} ${e.object.metadata.name}`);
        }
        expect(seen).toEqual(['DELETED h-a', 'ADDED h-b', 'MODIFIED h-c', 'ADDED h-f', 'DELETED h-e', 'MODIFIED h-k']);
        // Nothing else was owed: the next event is the next change.
        await put('h-z', app);
        expect(await w.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'h-z' } } });
        // Then live, as before: leaving is DELETED.
        await put('h-b', other);
        expect(await w.next()).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'h-b' } } });
      } finally {
        w.close();
      }
      // A field selector on a field no write changes is judged at `before` the same way.
      const named = await openWatch(selected(`&fieldSelector=${encodeURIComponent('metadata.name=h-a')}`));
      try {
        expect(await named.next()).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'h-a', labels: other } } });
        await put('h-a', app);
        expect(await named.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'h-a' } } });
      } finally {
        named.close();
      }
    });

    it('from an older resourceVersion with fieldSelector status.phase=Running: a pod that finished since is DELETED, one that started ADDED', async () => {
      const app = { app: 'ph' };
      await put('ph-done', app, 'Running');
      await put('ph-start', app, 'Pending');
      await put('ph-steady', app, 'Running');
      await put('ph-gone', app, 'Running');
      await put('ph-blip', app, 'Running');
      const before = await storage.currentRevision();
      await put('ph-done', app, 'Succeeded'); // left
      await put('ph-start', app, 'Running'); // entered
      await put('ph-steady', { ...app, v: '2' }, 'Running'); // changed inside
      await put('ph-gone', app, 'Failed'); // left, then deleted: DELETED once
      await remove('ph-gone');
      await put('ph-blip', app, 'Unknown'); // left and came back: still held
      await put('ph-blip', app, 'Running');
      const w = await openWatch(`${served.api.base}${P}/api/v1/namespaces/sel/pods?watch=true&labelSelector=app%3Dph&fieldSelector=status.phase%3DRunning&resourceVersion=${before}`);
      try {
        const seen: string[] = [];
        for (let i = 0; i < 5; i++) {
          const e = await w.next();
          seen.push(`${e.type} ${e.object.metadata.name}`);
        }
        expect(seen).toEqual(['DELETED ph-done', 'ADDED ph-start', 'MODIFIED ph-steady', 'DELETED ph-gone', 'MODIFIED ph-blip']);
        await put('ph-done', app, 'Running');
        expect(await w.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'ph-done' } } });
      } finally {
        w.close();
      }
    });

    it('fieldSelector status.phase=Pending: a pod that starts running leaves the watch, one that goes back enters it', async () => {
      await put('f-1', { app: 'f' }, 'Pending');
      const w = await openWatch(`${served.api.base}${P}/api/v1/namespaces/sel/pods?watch=true&fieldSelector=status.phase%3DPending&resourceVersion=${await storage.currentRevision()}`);
      try {
        await put('f-1', { app: 'f' }, 'Running');
        expect(await w.next()).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'f-1' } } });
        await put('f-1', { app: 'f' }, 'Pending');
        expect(await w.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'f-1' } } });
      } finally {
        w.close();
      }
    });

    it('a change made once the watch has answered is judged against what matched then, however slow the read of it', async () => {
      await put('slow-1', { app: 'slow' }, 'Pending');
      // The read of what matches (keys only) answers late, as on a busy database.
      const list = storage.list.bind(storage);
      storage.list = async (q, signal) => {
        if (q.keysOnly) await new Promise((r) => setTimeout(r, 400));
        return list(q, signal);
      };
      try {
        const w = await openWatch(`${served.api.base}${P}/api/v1/namespaces/sel/pods?watch=true&fieldSelector=status.phase%3DPending&resourceVersion=${await storage.currentRevision()}`);
        try {
          await put('slow-1', { app: 'slow' }, 'Running');
          expect(await w.next(3000)).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'slow-1' } } });
        } finally {
          w.close();
        }
      } finally {
        storage.list = list;
      }
    });

    it('a watch whose read of what matches fails answers with the storage\'s Status, not a stream', async () => {
      await put('unread-1', { app: 'x' });
      const list = storage.list.bind(storage);
      storage.list = async (q, signal) => {
        if (q.keysOnly) throw new StorageError('Unavailable', 'list: database unreachable', true);
        return list(q, signal);
      };
      try {
        const res = await fetch(`${served.api.base}${P}/api/v1/namespaces/sel/pods?watch=true&labelSelector=app%3Dx&resourceVersion=${await storage.currentRevision()}`);
        // The storage's own words stay in the log: the client is told to retry.
        expect({ status: res.status, body: await res.json() }).toMatchObject({ status: 503, body: { kind: 'Status', code: 503, message: 'storage is unavailable; retry later' } });
      } finally {
        storage.list = list;
      }
    });

    it('a label-selected @kubernetes/client-node informer drops a pod whose label no longer matches', async () => {
      await put('inf-1', { app: 'inf' });
      await put('inf-2', { app: 'inf' });
      const kc = new k8s.KubeConfig();
      kc.loadFromOptions({
        // Plain HTTP on loopback; client-node asks skipTLSVerify to allow it.
        clusters: [{ name: 'cp', server: `${served.api.base}${P}/clusters/c1`, skipTLSVerify: true }],
        users: [{ name: 'u' }], contexts: [{ name: 'cp', cluster: 'cp', user: 'u' }], currentContext: 'cp',
      });
      const core = kc.makeApiClient(k8s.CoreV1Api);
      const informer = k8s.makeInformer(kc, '/api/v1/namespaces/sel/pods', () => core.listNamespacedPod({ namespace: 'sel', labelSelector: 'app=inf' }), 'app=inf');
      const deleted: string[] = [];
      informer.on('delete', (p) => deleted.push(p.metadata?.name ?? ''));
      await informer.start();
      try {
        const names = (): string[] => informer.list().map((p) => p.metadata?.name ?? '').sort();
        expect(names()).toEqual(['inf-1', 'inf-2']);
        await put('inf-1', { app: 'retired' });
        const deadline = Date.now() + 10_000;
        while (Date.now() < deadline && names().length > 1) await new Promise((r) => setTimeout(r, 50));
        expect(names()).toEqual(['inf-2']);
        expect(deleted).toEqual(['inf-1']);
      } finally {
        await informer.stop();
      }
    });

    it('a watch without selectors reports every change as it is', async () => {
      const w = await openWatch(`${served.api.base}${P}/api/v1/namespaces/sel/pods?watch=true&resourceVersion=${await storage.currentRevision()}`);
      try {
        await put('plain-1', { app: 'x' });
        expect(await w.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'plain-1' } } });
        await put('plain-1', { app: 'y' });
        expect(await w.next()).toMatchObject({ type: 'MODIFIED', object: { metadata: { name: 'plain-1', labels: { app: 'y' } } } });
      } finally {
        w.close();
      }
    });
  });
}

contract('sqlite', async () => ({ url: 'sqlite::memory:', drop: async () => {} }));
contract('postgres', () => freshPostgresDatabase('cp_watch_sel'));
