// Contract: the write path — revisions, member-RV guards, batch collapsing, deletes, cleans, counts, resume map.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MEMBER_RV_ANNOTATION } from '../../src/kube/types.js';
import { prepareUpsert } from '../../src/storage/object-columns.js';
import type { DeleteKey, Storage } from '../../src/storage/types.js';
import { drain, ids, obj, pod, PODS, revisionsOf, type Harness, type OpenHarness } from './fixtures.js';

const key = (cluster: string, namespace: string, name: string, resourceVersion?: string): DeleteKey => ({
  cluster, group: '', version: 'v1', resource: 'pods', namespace, name, ...(resourceVersion !== undefined ? { resourceVersion } : {}),
});

async function stored(s: Storage, cluster: string, namespace: string, name: string): Promise<{ memberRv: string; revision: string; object: Record<string, unknown> } | undefined> {
  const r = await s.get({ cluster, group: '', version: 'v1', resource: 'pods', namespace, name });
  if (!r) return undefined;
  return { memberRv: r.resourceVersion, revision: r.revision, object: JSON.parse(r.object) as Record<string, unknown> };
}

export function writeContract(open: OpenHarness): void {
  describe('writes', () => {
    let h: Harness;
    let s: Storage;
    let rev: (n: number) => string;
    beforeEach(async () => {
      h = await open();
      s = h.storage;
      await s.migrate();
      rev = await revisionsOf(s);
    });
    afterEach(async () => h.cleanup());

    it('U1: each effective write takes the next revision, stamped into metadata.resourceVersion; the member RV moves to the annotation', async () => {
      const r1 = await s.write({ upserts: [pod({ cluster: 'c1', namespace: 'ns', name: 'a', rv: '5', labels: { app: 'x' } }), pod({ cluster: 'c1', namespace: 'ns', name: 'b', rv: '6' })], deletes: [] });
      expect(r1).toEqual({ written: 2, skipped: 0, deleted: 0, revision: rev(2) });
      const r2 = await s.write({ upserts: [pod({ cluster: 'c1', namespace: 'ns', name: 'a', rv: '7', labels: { app: 'y' } })], deletes: [] });
      expect(r2.revision).toBe(rev(3));
      const a = await stored(s, 'c1', 'ns', 'a');
      expect(a?.revision).toBe(rev(3));
      expect(a?.memberRv).toBe('7');
      expect(a?.object).toMatchObject({ metadata: { resourceVersion: rev(3), labels: { app: 'y' }, annotations: { [MEMBER_RV_ANNOTATION]: '7' } } });
      expect(await ids(s, { types: PODS, labels: [{ key: 'app', operator: '=', values: ['x'] }] })).toEqual([]);
      expect(await ids(s, { types: PODS, labels: [{ key: 'app', operator: '=', values: ['y'] }] })).toEqual(['c1/ns/a']);
      expect(await ids(s, { types: PODS })).toEqual(['c1/ns/a', 'c1/ns/b']);
      expect(await s.currentRevision()).toBe(rev(3));
    });

    it('revisions are strictly increasing across batches and rows', async () => {
      const seen: number[] = [];
      for (let b = 0; b < 5; b++) {
        const r = await s.write({ upserts: [0, 1, 2].map((i) => pod({ cluster: 'c', namespace: 'ns', name: `p${b}-${i}`, rv: String(b * 10 + i + 1) })), deletes: b > 0 ? [key('c', 'ns', `p${b - 1}-0`)] : [] });
        seen.push(Number(r.revision));
      }
      for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThan(seen[i - 1] as number);
      const revs = (await drain(await s.list({ types: PODS, orderBy: [{ column: 'name', desc: false }] }))).map((r) => Number(r.revision));
      expect(new Set(revs).size).toBe(revs.length);
      const changes = await s.changesSince(rev(0), { types: { kind: 'all' } }, 1000);
      expect(changes.expired).toBe(false);
      const crevs = changes.expired ? [] : changes.changes.map((c) => Number(c.revision));
      expect(crevs).toEqual([...crevs].sort((x, y) => x - y));
    });

    it('RV guard: a replay (same RV) and an older RV are skipped; a newer RV and a different non-decimal RV replace', async () => {
      await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'a', rv: '100', labels: { v: '1' } })], deletes: [] });
      expect(await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'a', rv: '100', labels: { v: '2' } })], deletes: [] })).toEqual({ written: 0, skipped: 1, deleted: 0, revision: rev(1) });
      expect(await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'a', rv: '99', labels: { v: '3' } })], deletes: [] })).toMatchObject({ written: 0, skipped: 1 });
      // Numeric, not text: "1000" > "999" although "1000" < "999" as text.
      await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'a', rv: '999' })], deletes: [] });
      expect((await stored(s, 'c', 'ns', 'a'))?.memberRv).toBe('999');
      expect(await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'a', rv: '1000' })], deletes: [] })).toMatchObject({ written: 1 });
      expect(await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'a', rv: '12345678901234567890123' })], deletes: [] })).toMatchObject({ written: 1 });
      expect(await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'a', rv: '12345678901234567890122' })], deletes: [] })).toMatchObject({ written: 0, skipped: 1 });
      await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'n', rv: 'abc' })], deletes: [] });
      expect(await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'n', rv: 'abc' })], deletes: [] })).toMatchObject({ written: 0, skipped: 1 });
      expect(await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'n', rv: 'abd' })], deletes: [] })).toMatchObject({ written: 1 });
    });

    it('a batch is collapsed per key: the highest RV wins; a later delete wins unless the upsert is newer', async () => {
      const r = await s.write({
        upserts: [
          pod({ cluster: 'c', namespace: 'ns', name: 'a', rv: '3', labels: { v: 'three' } }),
          pod({ cluster: 'c', namespace: 'ns', name: 'a', rv: '5', labels: { v: 'five' } }),
          pod({ cluster: 'c', namespace: 'ns', name: 'a', rv: '4', labels: { v: 'four' } }),
          pod({ cluster: 'c', namespace: 'ns', name: 'b', rv: '10' }),
          pod({ cluster: 'c', namespace: 'ns', name: 'c', rv: '10' }),
        ],
        deletes: [key('c', 'ns', 'b', '11'), key('c', 'ns', 'c', '9')],
      });
      expect(r).toEqual({ written: 2, skipped: 3, deleted: 0, revision: rev(2) });
      expect((await stored(s, 'c', 'ns', 'a'))?.object).toMatchObject({ metadata: { labels: { v: 'five' } } });
      expect(await ids(s, { types: PODS })).toEqual(['c/ns/a', 'c/ns/c']);
    });

    it('an upsert prepared ahead (prepareUpsert) is stored and served as the same object parsed, and collapses with parsed ones', async () => {
      const spec = (cluster: string, rv: string, v: string) => pod({ cluster, namespace: 'ns', name: 'a', rv, labels: { v }, owner: 'o-1' });
      await s.write({ upserts: [spec('parsed', '5', 'x')], deletes: [] });
      await s.write({ upserts: [prepareUpsert(spec('prepared', '5', 'x'))], deletes: [] });
      const parsed = await s.get({ cluster: 'parsed', group: '', version: 'v1', resource: 'pods', namespace: 'ns', name: 'a' });
      const prepared = await s.get({ cluster: 'prepared', group: '', version: 'v1', resource: 'pods', namespace: 'ns', name: 'a' });
      expect(prepared?.resourceVersion).toBe('5');
      // Byte for byte, but for the cluster's name (annotation, uid) and the revision.
      expect(prepared?.object.replaceAll('prepared', 'parsed').replace(`"resourceVersion":"${rev(2)}"`, `"resourceVersion":"${rev(1)}"`)).toBe(parsed?.object);
      expect(await ids(s, { types: PODS, labels: [{ key: 'v', operator: '=', values: ['x'] }] })).toEqual(['parsed/ns/a', 'prepared/ns/a']);
      expect(await ids(s, { types: PODS, clusters: { op: 'in', values: ['prepared'] }, owner: { uid: 'o-1', seniority: 0 } })).toEqual(['prepared/ns/a']);
      // In one batch, prepared and parsed upserts of a key collapse by member RV whichever form each came in.
      const r = await s.write({ upserts: [prepareUpsert(spec('prepared', '9', 'nine')), spec('prepared', '7', 'seven'), prepareUpsert(spec('prepared', '8', 'eight'))], deletes: [] });
      expect(r).toMatchObject({ written: 1, skipped: 2 });
      expect((await stored(s, 'prepared', 'ns', 'a'))?.object).toMatchObject({ metadata: { labels: { v: 'nine' }, annotations: { [MEMBER_RV_ANNOTATION]: '9' } } });
    });

    it('delete guard: a delete older than the stored row keeps it; a delete without RV or not older removes it', async () => {
      await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'a', rv: '10' }), pod({ cluster: 'c', namespace: 'ns', name: 'b', rv: '10' }), pod({ cluster: 'c', namespace: 'ns', name: 'c', rv: '10' })], deletes: [] });
      expect(await s.write({ upserts: [], deletes: [key('c', 'ns', 'a', '9')] })).toMatchObject({ deleted: 0, skipped: 1 });
      expect(await s.write({ upserts: [], deletes: [key('c', 'ns', 'a', '10'), key('c', 'ns', 'b'), key('c', 'ns', 'zzz', '1')] })).toMatchObject({ deleted: 2, revision: rev(5) });
      expect(await ids(s, { types: PODS })).toEqual(['c/ns/c']);
      // Re-created after the delete: a fresh row.
      expect(await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'a', rv: '3' })], deletes: [] })).toMatchObject({ written: 1 });
    });

    it('D1: a delete removes exactly that row (same name in other clusters, namespaces, types stays)', async () => {
      await s.write({
        upserts: [
          pod({ cluster: 'c1', namespace: 'ns', name: 'x' }), pod({ cluster: 'c2', namespace: 'ns', name: 'x' }), pod({ cluster: 'c1', namespace: 'ns2', name: 'x' }),
          obj('deployments', { cluster: 'c1', namespace: 'ns', name: 'x' }),
        ],
        deletes: [],
      });
      await s.write({ upserts: [], deletes: [key('c1', 'ns', 'x')] });
      expect(await ids(s, { types: { kind: 'all' } })).toEqual(['c1/ns/x', 'c1/ns2/x', 'c2/ns/x']);
      expect((await drain(await s.list({ types: { kind: 'all' } }))).map((r) => r.resource)).toEqual(['deployments', 'pods', 'pods']);
    });

    it('an object without a name is rejected as Invalid', async () => {
      const bad = pod({ cluster: 'c', namespace: 'ns', name: '' });
      await expect(s.write({ upserts: [bad], deletes: [] })).rejects.toMatchObject({ code: 'Invalid', retryable: false });
    });

    it('resource types and counts are maintained by the writer', async () => {
      await s.write({
        upserts: [pod({ cluster: 'c1', namespace: 'ns', name: 'a' }), pod({ cluster: 'c1', namespace: 'ns', name: 'b' }), obj('nodes', { cluster: 'c1', name: 'n' }), pod({ cluster: 'c2', namespace: 'ns', name: 'a' })],
        deletes: [],
      });
      await s.write({ upserts: [], deletes: [key('c1', 'ns', 'b')] });
      expect(await s.resourceTypes()).toEqual([
        { cluster: 'c1', group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false },
        { cluster: 'c1', group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true },
        { cluster: 'c2', group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true },
      ]);
      const counts = await s.counts();
      expect(counts.map((c) => [c.cluster, c.resource, c.count])).toEqual([['c1', 'nodes', 1], ['c1', 'pods', 1], ['c2', 'pods', 1]]);
      expect(counts.every((c) => c.bytes > 0)).toBe(true);
    });

    it('resourceVersions: key "ns/name" or "name" → member RV, for one cluster and type', async () => {
      await s.write({
        upserts: [pod({ cluster: 'c1', namespace: 'ns', name: 'a', rv: '7' }), pod({ cluster: 'c2', namespace: 'ns', name: 'a', rv: '8' }), obj('nodes', { cluster: 'c1', name: 'n', rv: '9' })],
        deletes: [],
      });
      expect(await s.resourceVersions('c1', { group: '', version: 'v1', resource: 'pods' })).toEqual(new Map([['ns/a', '7']]));
      expect(await s.resourceVersions('c1', { group: '', version: 'v1', resource: 'nodes' })).toEqual(new Map([['n', '9']]));
      expect((await s.resourceVersions('c9', { group: '', version: 'v1', resource: 'pods' })).size).toBe(0);
    });

    it('resourceVersions handles 20,000 rows in one query', async () => {
      const objs = Array.from({ length: 20_000 }, (_, i) => pod({ cluster: 'big', namespace: `ns-${i % 10}`, name: `p-${i}`, rv: String(i + 1) }));
      for (let i = 0; i < objs.length; i += 2000) await s.write({ upserts: objs.slice(i, i + 2000), deletes: [] });
      const t0 = performance.now();
      const m = await s.resourceVersions('big', { group: '', version: 'v1', resource: 'pods' });
      expect(m.size).toBe(20_000);
      expect(m.get('ns-3/p-13')).toBe('14');
      expect(performance.now() - t0).toBeLessThan(2000);
    });

    it('cleanResource and cleanCluster delete rows, label rows and types, and log DELETED entries', async () => {
      await s.write({
        upserts: [pod({ cluster: 'c1', namespace: 'ns', name: 'a', labels: { app: 'x' } }), pod({ cluster: 'c1', namespace: 'ns', name: 'b', labels: { app: 'x' } }), obj('nodes', { cluster: 'c1', name: 'n' }), pod({ cluster: 'c2', namespace: 'ns', name: 'a', labels: { app: 'x' } })],
        deletes: [],
      });
      const before = Number(await s.currentRevision());
      expect(await s.cleanResource('c1', { group: '', version: 'v1', resource: 'pods' })).toBe(2);
      expect(await ids(s, { types: { kind: 'all' } })).toEqual(['c1//n', 'c2/ns/a']);
      expect(await ids(s, { types: PODS, labels: [{ key: 'app', operator: '=', values: ['x'] }] })).toEqual(['c2/ns/a']);
      expect((await s.resourceTypes()).map((t) => `${t.cluster}/${t.resource}`)).toEqual(['c1/nodes', 'c2/pods']);
      expect(await s.currentRevision()).toBe(String(before + 2));
      const ch = await s.changesSince(String(before), { types: { kind: 'all' } }, 100);
      expect(ch.expired ? [] : ch.changes.map((c) => [c.type, c.row.name, c.revision, (JSON.parse(c.row.object) as { metadata: { resourceVersion: string } }).metadata.resourceVersion])).toEqual([
        ['DELETED', 'a', String(before + 1), String(before + 1)],
        ['DELETED', 'b', String(before + 2), String(before + 2)],
      ]);
      expect(await s.cleanCluster('c1')).toBe(1);
      expect(await s.cleanCluster('c1')).toBe(0);
      expect(await ids(s, { types: { kind: 'all' } })).toEqual(['c2/ns/a']);
      expect((await s.resourceTypes()).map((t) => t.cluster)).toEqual(['c2']);
      // A cleaned type comes back on the next write.
      await s.write({ upserts: [pod({ cluster: 'c1', namespace: 'ns', name: 'z', labels: { app: 'x' } })], deletes: [] });
      expect(await ids(s, { types: PODS, labels: [{ key: 'app', operator: 'exists', values: [] }] })).toEqual(['c1/ns/z', 'c2/ns/a']);
    });

    it('cluster status: put, read back, replace, delete', async () => {
      await s.putClusterStatus('c1', { spec: { apiserver: 'https://x' }, status: { conditions: [{ type: 'Ready', status: 'True' }] }, updatedAt: '2024-01-01T00:00:00Z' });
      await s.putClusterStatus('c2', { spec: {}, status: {}, updatedAt: '2024-01-02T00:00:00Z' });
      await s.putClusterStatus('c1', { spec: { apiserver: 'https://y' }, status: {}, updatedAt: '2024-01-03T00:00:00Z' });
      const m = await s.clusterStatuses();
      expect([...m.keys()]).toEqual(['c1', 'c2']);
      expect(m.get('c1')).toEqual({ spec: { apiserver: 'https://y' }, status: {}, updatedAt: '2024-01-03T00:00:00Z' });
      await s.deleteClusterStatus('c1');
      expect([...(await s.clusterStatuses()).keys()]).toEqual(['c2']);
    });

    it('cluster status with requireRevision: written while storage holds that revision, refused (false, nothing written) where it does not', async () => {
      const status = (updatedAt: string) => ({ spec: {}, status: { conditions: [] }, updatedAt });
      const first = await s.write({ upserts: [pod({ cluster: 'c1', namespace: 'ns', name: 'a' })], deletes: [] });
      const head = await s.write({ upserts: [pod({ cluster: 'c1', namespace: 'ns', name: 'b' })], deletes: [] });
      expect(await s.putClusterStatus('c1', status('2024-01-01T00:00:00Z'), { requireRevision: head.revision })).toBe(true);
      // An older entry of the change log is held too: every commit up to it is.
      expect(await s.putClusterStatus('c1', status('2024-01-02T00:00:00Z'), { requireRevision: first.revision })).toBe(true);
      // One past the head was never issued by storage as it stands: issued, then lost (a crash, a restore).
      const lost = String(BigInt(head.revision) + 1n);
      expect(await s.putClusterStatus('c1', status('2024-01-03T00:00:00Z'), { requireRevision: lost })).toBe(false);
      expect((await s.clusterStatuses()).get('c1')?.updatedAt).toBe('2024-01-02T00:00:00Z');
      // A jump leaves its target held (its mark), and the revisions it skipped not.
      const target = String(BigInt(head.revision) + 1000n);
      await s.advanceRevision(target);
      expect(await s.putClusterStatus('c1', status('2024-01-04T00:00:00Z'), { requireRevision: target })).toBe(true);
      expect(await s.putClusterStatus('c1', status('2024-01-05T00:00:00Z'), { requireRevision: String(BigInt(head.revision) + 500n) })).toBe(false);
      expect((await s.clusterStatuses()).get('c1')?.updatedAt).toBe('2024-01-04T00:00:00Z');
    });

    it('fuzzy names with %, _ and \\ are matched literally', async () => {
      await s.write({ upserts: ['a%b', 'a_b', 'axb', 'a\\b', 'a\\\\b'].map((name) => pod({ cluster: 'c', namespace: 'ns', name })), deletes: [] });
      expect(await ids(s, { types: PODS, fuzzyNames: ['%'] })).toEqual(['c/ns/a%b']);
      expect(await ids(s, { types: PODS, fuzzyNames: ['_'] })).toEqual(['c/ns/a_b']);
      expect(await ids(s, { types: PODS, fuzzyNames: ['a\\b'] })).toEqual(['c/ns/a\\b']);
      expect(await ids(s, { types: PODS, fuzzyNames: ['\\\\'] })).toEqual(['c/ns/a\\\\b']);
    });
  });
}
