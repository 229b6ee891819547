// A list's or get's resourceVersion, as kube-apiserver reads it: "exact" answers the state at that revision or 410
// Expired (this server keeps only the newest state), "not older than" the newest, and a revision this store never
// issued (ahead of it: reset or restored since) 410 Expired, so that client-go and client-node list again from the
// newest. Both backends.
import * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/lib/log.js';
import { openStorage } from '../../../src/storage/open.js';
import type { Storage } from '../../../src/storage/types.js';
import { startTestApiserver, type TestApiserver } from '../../support/apiserver.js';
import { deployment, healthyStatus, pod } from '../../support/fixtures.js';
import { freshPostgresDatabase } from '../../support/postgres.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };

interface Answer { status: number; body: { kind?: string; code?: number; reason?: string; message?: string; metadata?: { resourceVersion?: string }; items?: { metadata: { name: string } }[]; rows?: unknown[] } }

async function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  const r = await fetch(url, { headers });
  return { status: r.status, body: (await r.json()) as Answer['body'] };
}

function contract(backend: string, target: () => Promise<{ url: string; drop: () => Promise<void> }>): void {
  describe(backend, () => {
    async function withStore(run: (s: Storage, api: TestApiserver) => Promise<void>): Promise<void> {
      const t = await target();
      const storage = await openStorage({ url: t.url }, { logger: silentLogger() });
      let api: TestApiserver | undefined;
      try {
        await storage.migrate();
        for (const c of ['c1', 'c2']) await storage.putClusterStatus(c, healthyStatus(c, true));
        await storage.write({ upserts: [pod('c1', 'a', 'p1'), pod('c1', 'b', 'p2'), pod('c2', 'a', 'p3')], deletes: [] });
        api = await startTestApiserver(storage);
        await run(storage, api);
      } finally {
        await api?.stop();
        await storage.close();
        await t.drop();
      }
    }

    it('exact: the state at that revision while nothing the list covers changed since, 410 Expired once something did', async () => {
      await withStore(async (storage, api) => {
        const first = await get(`${api.base}${P}/api/v1/pods`);
        const rv = first.body.metadata?.resourceVersion ?? '';
        const names = (a: Answer): string[] => (a.body.items ?? []).map((i) => i.metadata.name).sort();
        // Changes the pod list does not cover: another type, and (for the namespaced list) another namespace.
        await storage.write({ upserts: [deployment('c1', 'a', 'd1')], deletes: [] });
        for (const q of [`resourceVersion=${rv}&resourceVersionMatch=Exact`, `resourceVersion=${rv}&limit=2`]) {
          const a = await get(`${api.base}${P}/api/v1/pods?${q}`);
          expect(a.status, q).toBe(200);
          expect(names(a)).toEqual(q.includes('limit') ? ['p1', 'p2'] : ['p1', 'p2', 'p3']);
          expect(BigInt(a.body.metadata?.resourceVersion ?? '0')).toBeGreaterThan(BigInt(rv));
        }
        await storage.write({ upserts: [pod('c1', 'b', 'p4')], deletes: [] });
        expect((await get(`${api.base}${P}/clusters/c1/api/v1/namespaces/a/pods?resourceVersion=${rv}&resourceVersionMatch=Exact`)).status).toBe(200);
        expect((await get(`${api.base}${P}/clusters/c2/api/v1/pods?resourceVersion=${rv}&resourceVersionMatch=Exact`)).status).toBe(200);
        expect((await get(`${api.base}${P}/api/v1/pods?clusters=c2&resourceVersion=${rv}&limit=5`)).status).toBe(200);
        // The list of every pod did change: the state at rv is gone.
        for (const q of [`resourceVersion=${rv}&resourceVersionMatch=Exact`, `resourceVersion=${rv}&limit=2`, `clusters=c1&resourceVersion=${rv}&limit=1`]) {
          for (const headers of [{}, TABLE]) {
            const a = await get(`${api.base}${P}/api/v1/pods?${q}`, headers);
            expect(a.status, q).toBe(410);
            expect(a.body).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
            expect(a.body.message).toMatch(new RegExp(`^resource version ${rv} \\(exact\\): what this list covers changed since, and this server keeps only the newest state`));
          }
        }
        // Not older than: the newest, which is.
        for (const q of [`resourceVersion=${rv}`, `resourceVersion=${rv}&resourceVersionMatch=NotOlderThan&limit=2`, 'resourceVersion=0&limit=2']) {
          const a = await get(`${api.base}${P}/api/v1/pods?${q}`);
          expect(a.status, q).toBe(200);
          expect(names(a)).toEqual(q.includes('limit') ? ['p1', 'p2'] : ['p1', 'p2', 'p3', 'p4']);
        }
        // An object changed after the revision asked for and again after that: its first change counts too.
        const before = await storage.currentRevision();
        await storage.write({ upserts: [pod('c1', 'a', 'p1', { rv: '400' })], deletes: [] });
        const between = await storage.currentRevision();
        await storage.write({ upserts: [pod('c1', 'a', 'p1', { rv: '500' })], deletes: [] });
        expect((await get(`${api.base}${P}/clusters/c1/api/v1/namespaces/a/pods?resourceVersion=${before}&resourceVersionMatch=Exact`)).status).toBe(410);
        expect((await get(`${api.base}${P}/clusters/c1/api/v1/namespaces/a/pods?resourceVersion=${between}&resourceVersionMatch=Exact`)).status).toBe(410);
        // A label change moves an object out of a selector without changing its type, cluster or name: it counts.
        await storage.write({ upserts: [pod('c2', 'a', 'labelled', { labels: { app: 'x' }, rv: '200' })], deletes: [] });
        const labelled = await get(`${api.base}${P}/api/v1/pods?labelSelector=app%3Dx&clusters=c2`);
        expect(names(labelled)).toEqual(['labelled']);
        await storage.write({ upserts: [pod('c2', 'a', 'labelled', { labels: { app: 'y' }, rv: '300' })], deletes: [] });
        const at = labelled.body.metadata?.resourceVersion ?? '';
        expect((await get(`${api.base}${P}/api/v1/pods?labelSelector=app%3Dx&clusters=c2&resourceVersion=${at}&resourceVersionMatch=Exact`)).status).toBe(410);
        // collectionresources read the same way.
        const now = await storage.currentRevision();
        const workloads = `${api.base}/apis/clusterpedia.io/v1beta1/collectionresources/workloads?resourceVersion=${now}`;
        expect((await get(`${workloads}&resourceVersionMatch=Exact`)).status).toBe(200);
        await storage.write({ upserts: [deployment('c2', 'a', 'd2')], deletes: [] });
        expect((await get(`${workloads}&limit=10`)).body).toMatchObject({ code: 410, reason: 'Expired' });
      });
    });

    it('through client-node: a paged list from a revision since changed is an ApiException 410; NotOlderThan is served', async () => {
      await withStore(async (storage, api) => {
        const kc = new k8s.KubeConfig();
        kc.loadFromOptions({
          clusters: [{ name: 'cp', server: `${api.base}${P}`, skipTLSVerify: true }],
          users: [{ name: 'u' }], contexts: [{ name: 'cp', cluster: 'cp', user: 'u' }], currentContext: 'cp',
        });
        const core = kc.makeApiClient(k8s.CoreV1Api);
        const first = await core.listPodForAllNamespaces({ limit: 2 });
        const rv = first.metadata?.resourceVersion ?? '';
        expect((await core.listPodForAllNamespaces({ limit: 2, resourceVersion: rv })).items.map((p) => p.metadata?.name)).toEqual(['p1', 'p2']);
        await storage.write({ upserts: [pod('c1', 'a', 'p0')], deletes: [] });
        const refused = await core.listPodForAllNamespaces({ limit: 2, resourceVersion: rv }).then(() => undefined, (e: unknown) => e);
        expect(refused).toBeInstanceOf(k8s.ApiException);
        expect((refused as k8s.ApiException<string>).code).toBe(410);
        expect(JSON.parse((refused as k8s.ApiException<string>).body)).toMatchObject({ kind: 'Status', reason: 'Expired' });
        const served = await core.listPodForAllNamespaces({ limit: 2, resourceVersion: rv, resourceVersionMatch: 'NotOlderThan' });
        expect(served.items.map((p) => p.metadata?.name)).toEqual(['p0', 'p1']);
      });
    });

    it('a streamed list refused after its read gives its connection back', async () => {
      await withStore(async (storage, api) => {
        const rv = (await get(`${api.base}${P}/api/v1/pods`)).body.metadata?.resourceVersion ?? '';
        await storage.write({ upserts: Array.from({ length: 1_200 }, (_, i) => pod('c2', 'bulk', `q${i}`)), deletes: [] });
        // An unlimited Table list of 1,200 rows streams from a cursor; each is refused once read: more than any pool holds.
        for (let i = 0; i < 40; i++) expect((await get(`${api.base}${P}/api/v1/pods?resourceVersion=${rv}&resourceVersionMatch=Exact`, TABLE)).status).toBe(410);
        const a = await get(`${api.base}${P}/api/v1/pods`, TABLE);
        expect(a.status).toBe(200);
        expect(a.body.rows).toHaveLength(1_203);
        await storage.write({ upserts: [pod('c1', 'a', 'after')], deletes: [] });
        expect((await get(`${api.base}${P}/clusters/c1/api/v1/namespaces/a/pods/after`)).status).toBe(200);
      });
    });

    it('a resourceVersion ahead of the store (reset or restored since it was issued) is 410 Expired for lists and gets; malformed ones are 400', async () => {
      await withStore(async (storage, api) => {
        const ahead = (BigInt(await storage.currentRevision()) + 1_000n).toString();
        for (const path of [`${P}/api/v1/pods?resourceVersion=${ahead}`, `${P}/api/v1/pods?resourceVersion=${ahead}&limit=1`,
          `${P}/api/v1/pods?resourceVersion=${ahead}&resourceVersionMatch=NotOlderThan&limit=1`, `${P}/clusters/c1/api/v1/namespaces/a/pods/p1?resourceVersion=${ahead}`,
          `/apis/clusterpedia.io/v1beta1/collectionresources/any?groups=*&resourceVersion=${ahead}`]) {
          const a = await get(`${api.base}${path}`);
          expect(a.status, path).toBe(410);
          expect(a.body).toMatchObject({ kind: 'Status', reason: 'Expired', message: expect.stringMatching(new RegExp(`^resource version ${ahead} is newer than the newest this server holds`)) });
        }
        expect((await get(`${api.base}${P}/clusters/c1/api/v1/namespaces/a/pods/p1?resourceVersion=0`)).status).toBe(200);
        const current = await storage.currentRevision();
        expect((await get(`${api.base}${P}/clusters/c1/api/v1/namespaces/a/pods/p1?resourceVersion=${current}`)).status).toBe(200);
        for (const path of [`${P}/api/v1/pods?resourceVersion=abc`, `${P}/api/v1/pods?watch=true&resourceVersion=-1`,
          `${P}/clusters/c1/api/v1/namespaces/a/pods/p1?resourceVersion=1.5`, `${P}/api/v1/pods?resourceVersion=99999999999999999999`]) {
          const a = await get(`${api.base}${path}`);
          expect(a.status, path).toBe(400);
          expect(a.body.message).toMatch(/^resourceVersion: Invalid value: ".*": must be a non-negative integer( no greater than 18446744073709551615 \(64 bits\))?$/);
        }
      });
    });
  });
}

contract('sqlite', async () => ({ url: 'sqlite::memory:', drop: async () => {} }));
contract('postgres', () => freshPostgresDatabase('cp_list_revision'));
