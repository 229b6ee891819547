// A client holding a resourceVersion from a store that is gone (the SQLite file lost, the database created anew, a move
// to another backend, a restore from a backup) is answered 410 Expired when it resumes its watch, and lists again; a
// watch open while the store is restored in place is ended the same way.
// Waiting instead would leave its cache stale in silence: revisions mean something only in the store that issued them.
// Both backends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/lib/log.js';
import { openStorage } from '../../../src/storage/open.js';
import type { Storage } from '../../../src/storage/types.js';
import { startTestApiserver, type TestApiserver } from '../../support/apiserver.js';
import { backupPostgres, backupSqlite } from '../../support/backup.js';
import { healthyStatus, pod } from '../../support/fixtures.js';
import { freshPostgresDatabase } from '../../support/postgres.js';
import { openWatch, type WatchStream } from '../../support/watch-stream.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';

interface Target { url: string; drop: () => Promise<void> }

/** A migrated store holding `names` as pods of cluster c1 (each written on its own: one revision each). */
async function storeWith(target: Target, names: string[]): Promise<Storage> {
  const storage = await openStorage({ url: target.url }, { logger: silentLogger() });
  await storage.migrate();
  await storage.putClusterStatus('c1', healthyStatus('c1', true));
  for (const name of names) await storage.write({ upserts: [pod('c1', 'default', name, { rv: '10' })], deletes: [] });
  return storage;
}

/** Serves a store holding `names` for the length of `fn`, then stops, closes and drops it. */
async function served(t: Target, names: string[], fn: (storage: Storage, api: TestApiserver) => Promise<void>): Promise<void> {
  const storage = await storeWith(t, names);
  const api = await startTestApiserver(storage, (o) => {
    o.watch.pollIntervalMs = 50;
  });
  try {
    await fn(storage, api);
  } finally {
    await api.stop();
    await storage.close();
    await t.drop();
  }
}

/** The watch's next event is a 410 Expired Status (its message matching `message`), and then the watch ends. */
async function expectExpiredEnd(w: WatchStream, message?: RegExp): Promise<void> {
  try {
    expect(await w.next()).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', ...(message ? { message: expect.stringMatching(message) } : {}) } });
    expect(await w.ended(5_000)).toBe(true);
  } finally {
    w.close();
  }
}

function contract(backend: string, target: () => Promise<Target>): void {
  describe(backend, () => {
    it('a watch from a resourceVersion newer than the store holds gets an ERROR event with a 410 Expired Status, and the end', async () => {
      await served(await target(), ['a'], async (storage, api) => {
        const ahead = (BigInt(await storage.currentRevision()) + 1000n).toString();
        // A watch-list (initial events sent, not older than the revision) too: its initial state would be older.
        for (const q of [`resourceVersion=${ahead}`, `resourceVersion=${ahead}&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`]) {
          const w = await openWatch(`${api.base}${P}/api/v1/pods?watch=true&${q}`);
          await expectExpiredEnd(w, new RegExp(`^resource version ${ahead} is newer than the newest this server holds`));
        }
      });
    });

    it('an informer resuming against a store created anew lists again: what only the old store held is deleted', async () => {
      const first = await target();
      const old = await storeWith(first, ['only-old-1', 'only-old-2', 'both']);
      let api: TestApiserver = await startTestApiserver(old);
      const port = Number(new URL(api.base).port);
      const kc = new k8s.KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: 'cp', server: `${api.base}${P}`, skipTLSVerify: true }],
        users: [{ name: 'u' }], contexts: [{ name: 'cp', cluster: 'cp', user: 'u' }], currentContext: 'cp',
      });
      const core = kc.makeApiClient(k8s.CoreV1Api);
      const informer = k8s.makeInformer(kc, '/api/v1/pods', () => core.listPodForAllNamespaces());
      const deleted: string[] = [];
      informer.on('delete', (p) => deleted.push(p.metadata?.name ?? ''));
      let stopped = false;
      // client-node stops on connection errors: an application restarts it, from the resourceVersion it holds.
      informer.on('error', () => {
        if (!stopped) setTimeout(() => void informer.start().catch(() => undefined), 200);
      });
      const names = (): string[] => informer.list().map((p) => p.metadata?.name ?? '').sort();
      const second = await target();
      let fresh: Storage | undefined;
      await informer.start();
      try {
        expect(names()).toEqual(['both', 'only-old-1', 'only-old-2']);
        await api.stop();
        await old.close();
        // More writes than the old store had: numbered from where the old one started, its revisions would pass the
        // client's, and the watch would resume among them without a word.
        await new Promise((r) => setTimeout(r, 5));
        const wanted = ['both', 'only-new', ...Array.from({ length: 10 }, (_, i) => `churn-${i}`)];
        fresh = await storeWith(second, wanted);
        api = await startTestApiserver(fresh, (o) => {
          o.serving.insecurePort = port;
        });
        const deadline = Date.now() + 20_000;
        while (Date.now() < deadline && names().join() !== [...wanted].sort().join()) await new Promise((r) => setTimeout(r, 100));
        expect(names()).toEqual([...wanted].sort());
        expect(deleted.sort()).toEqual(['only-old-1', 'only-old-2']);
      } finally {
        stopped = true;
        await informer.stop();
        await api.stop();
        await fresh?.close();
        await first.drop();
        await second.drop();
      }
    });
  });
}

contract('sqlite', async () => ({ url: 'sqlite::memory:', drop: async () => {} }));
contract('postgres', () => freshPostgresDatabase('cp_watch_reset'));

/** A store restored in place from a backup while the apiserver runs: its open watches cannot go on. */
function restoredInPlace(backend: string, target: () => Promise<Target>, backup: (url: string) => Promise<() => Promise<void>>): void {
  it(`${backend}: a watch open while the store goes back to a backup ends with 410 Expired, so the client lists again`, async () => {
    const t = await target();
    await served(t, ['a', 'b'], async (storage, api) => {
      const restore = await backup(t.url);
      for (const name of ['c', 'd']) await storage.write({ upserts: [pod('c1', 'default', name, { rv: '11' })], deletes: [] });
      const w = await openWatch(`${api.base}${P}/api/v1/pods?watch=true&resourceVersion=${await storage.currentRevision()}`);
      await restore();
      // The revisions after the backup's are issued again, for other changes: a watch past them would miss those.
      await storage.write({ upserts: [pod('c1', 'default', 'e', { rv: '12' })], deletes: [] });
      await expectExpiredEnd(w, /the storage went back/);
    });
  });

  it(`${backend}: a client holding a revision lost to the restore gets 410 when it resumes, though a synchro moved the revision past it`, async () => {
    const t = await target();
    await served(t, ['a', 'b'], async (storage, api) => {
      const restore = await backup(t.url);
      for (const name of ['c', 'd']) await storage.write({ upserts: [pod('c1', 'default', name, { rv: '11' })], deletes: [] });
      // The client has seen c and d: the watch holds their revision.
      const held = await storage.currentRevision();
      const w = await openWatch(`${api.base}${P}/api/v1/pods?watch=true&resourceVersion=${held}`);
      await restore();
      // A synchro starting (or writing again after a failure) moves the revision up to the clock, past the held one;
      // c and d are not in storage any more and may never come back (deleted in the member meanwhile).
      await storage.advanceRevision((BigInt(held) + 1_000_000n).toString());
      await storage.write({ upserts: [pod('c1', 'default', 'e', { rv: '12' })], deletes: [] });
      await expectExpiredEnd(w, /the storage went back/);
      // The same client resuming from the revision it holds (after a restart of its own, or of this server).
      await expectExpiredEnd(await openWatch(`${api.base}${P}/api/v1/pods?watch=true&resourceVersion=${held}`), /is not one this storage holds/);
    });
  });
}

restoredInPlace('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cp-watch-restore-'));
  return { url: `sqlite:${join(dir, 'db.sqlite')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}, backupSqlite);
restoredInPlace('postgres', () => freshPostgresDatabase('cp_watch_restore'), backupPostgres);
