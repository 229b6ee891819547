// Contract: owner search (reference §2.8, §9.1 OW1–OW9).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListQuery, Storage } from '../../src/storage/types.js';
import { MAX_OWNER_SENIORITY } from '../../src/roles/apiserver/list-options.js';
import { ids, migratedStorage, obj, PODS, REPLICASETS, type Harness, type OpenHarness } from './fixtures.js';

const c1 = { op: 'in' as const, values: ['c1'] };

const owners = [
  obj('deployments', { cluster: 'c1', namespace: 'ns-1', name: 'dep-a', uid: 'uid-dep-a' }),
  obj('replicasets', { cluster: 'c1', namespace: 'ns-1', name: 'dep-a-7d', uid: 'uid-rs-a', owner: 'uid-dep-a' }),
  obj('pods', { cluster: 'c1', namespace: 'ns-1', name: 'dep-a-7d-x1', uid: 'uid-p1', owner: 'uid-rs-a' }),
  obj('pods', { cluster: 'c1', namespace: 'ns-1', name: 'dep-a-7d-x2', uid: 'uid-p2', owner: 'uid-rs-a' }),
  // Same name in another namespace.
  obj('deployments', { cluster: 'c1', namespace: 'ns-2', name: 'dep-a', uid: 'uid-dep-a2' }),
  obj('replicasets', { cluster: 'c1', namespace: 'ns-2', name: 'dep-a-9f', uid: 'uid-rs-a2', owner: 'uid-dep-a2' }),
  obj('pods', { cluster: 'c1', namespace: 'ns-2', name: 'dep-a-9f-y1', uid: 'uid-p3', owner: 'uid-rs-a2' }),
  // A pod in ns-1 whose owner is the ns-2 deployment's ReplicaSet's sibling: owned directly by the ns-2 deployment.
  obj('pods', { cluster: 'c1', namespace: 'ns-1', name: 'cross-ns', uid: 'uid-p4', owner: 'uid-dep-a2' }),
  // Same name, another group/resource.
  obj('statefulsets', { cluster: 'c1', namespace: 'ns-1', name: 'dep-a', uid: 'uid-sts-a' }),
  obj('pods', { cluster: 'c1', namespace: 'ns-1', name: 'dep-a-0', uid: 'uid-p5', owner: 'uid-sts-a' }),
  // Same name, cluster-scoped.
  obj('widgets', { cluster: 'c1', name: 'dep-a', uid: 'uid-widget-a' }),
  obj('pods', { cluster: 'c1', namespace: 'ns-3', name: 'owned-by-widget', uid: 'uid-p6', owner: 'uid-widget-a' }),
  // The same tree in another cluster: never mixed in.
  obj('deployments', { cluster: 'c2', namespace: 'ns-1', name: 'dep-a', uid: 'uid-c2-dep' }),
  obj('replicasets', { cluster: 'c2', namespace: 'ns-1', name: 'dep-a-7d', uid: 'uid-c2-rs', owner: 'uid-c2-dep' }),
  obj('pods', { cluster: 'c2', namespace: 'ns-1', name: 'dep-a-7d-x1', uid: 'uid-c2-p1', owner: 'uid-c2-rs' }),
  // An object without uid must not become the owner of every object without owner.
  obj('pods', { cluster: 'c1', namespace: 'ns-1', name: 'dep-a', uid: '' }),
];

export function ownerContract(open: OpenHarness): void {
  describe('owner search', () => {
    const storage = migratedStorage(open, async (st) => {
      await st.write({ upserts: owners, deletes: [] });
    });
    let s: Storage;
    beforeAll(() => {
      s = storage();
    });

    const q = (o: Partial<ListQuery>): Promise<string[]> => ids(s, { types: PODS, clusters: c1, ...o });

    it('OW1/OW2: by uid, children (seniority 0) and grandchildren (seniority 1)', async () => {
      expect(await ids(s, { types: REPLICASETS, clusters: c1, owner: { uid: 'uid-dep-a', seniority: 0 } })).toEqual(['c1/ns-1/dep-a-7d']);
      expect(await q({ owner: { uid: 'uid-dep-a', seniority: 1 } })).toEqual(['c1/ns-1/dep-a-7d-x1', 'c1/ns-1/dep-a-7d-x2']);
      expect(await q({ owner: { uid: 'uid-rs-a', seniority: 0 } })).toEqual(['c1/ns-1/dep-a-7d-x1', 'c1/ns-1/dep-a-7d-x2']);
      expect(await q({ owner: { uid: 'uid-dep-a', seniority: 2 } })).toEqual([]);
    });

    it('OW3: by name, children of every object of that name in the cluster', async () => {
      expect(await q({ owner: { name: 'dep-a', seniority: 0 } })).toEqual(['c1/ns-1/cross-ns', 'c1/ns-1/dep-a-0', 'c1/ns-3/owned-by-widget']);
      expect(await q({ owner: { name: 'dep-a', seniority: 1 } })).toEqual(['c1/ns-1/dep-a-7d-x1', 'c1/ns-1/dep-a-7d-x2', 'c1/ns-2/dep-a-9f-y1']);
    });

    it('OW4: uid wins over name', async () => {
      expect(await q({ owner: { uid: 'uid-sts-a', name: 'dep-a', seniority: 0 } })).toEqual(['c1/ns-1/dep-a-0']);
    });

    it('OW5: ownerGR restricts name candidates to one group/resource', async () => {
      expect(await q({ owner: { name: 'dep-a', groupResource: { group: 'apps', resource: 'deployments' }, seniority: 1 } })).toEqual([
        'c1/ns-1/dep-a-7d-x1', 'c1/ns-1/dep-a-7d-x2', 'c1/ns-2/dep-a-9f-y1',
      ]);
      expect(await q({ owner: { name: 'dep-a', groupResource: { group: 'apps', resource: 'statefulsets' }, seniority: 0 } })).toEqual(['c1/ns-1/dep-a-0']);
    });

    it('OW6: ownerGR and seniority without uid or name filter nothing', async () => {
      expect(await q({ owner: { groupResource: { group: 'apps', resource: 'deployments' }, seniority: 1 } })).toHaveLength(7);
    });

    it('OW7: without exactly one cluster the owner filter is not applied (the API layer answers 400 first)', async () => {
      expect(await ids(s, { types: PODS, owner: { uid: 'uid-rs-a', seniority: 0 } })).toHaveLength(8);
    });

    it('OW8: namespaces filter the results of a uid search', async () => {
      expect(await q({ namespaces: { op: 'in', values: ['ns-2'] }, owner: { uid: 'uid-dep-a2', seniority: 1 } })).toEqual(['c1/ns-2/dep-a-9f-y1']);
      expect(await q({ namespaces: { op: 'in', values: ['ns-1', 'ns-2'] }, owner: { uid: 'uid-dep-a2', seniority: 0 } })).toEqual(['c1/ns-1/cross-ns']);
    });

    it('OW9: with namespaces, name candidates are in those namespaces or cluster-scoped', async () => {
      // The ns-2 deployment is not a candidate, so cross-ns (in ns-1, owned by it) is not its child here.
      expect(await q({ namespaces: { op: 'in', values: ['ns-1', 'ns-3'] }, owner: { name: 'dep-a', seniority: 0 } })).toEqual(['c1/ns-1/dep-a-0', 'c1/ns-3/owned-by-widget']);
      expect(await q({ namespaces: { op: 'notin', values: ['ns-1'] }, owner: { name: 'dep-a', seniority: 1 } })).toEqual(['c1/ns-2/dep-a-9f-y1']);
    });

    it('the other cluster is never mixed in', async () => {
      expect(await ids(s, { types: PODS, clusters: { op: 'in', values: ['c2'] }, owner: { name: 'dep-a', seniority: 1 } })).toEqual(['c2/ns-1/dep-a-7d-x1']);
    });

    it('the deepest search the API allows (MAX_OWNER_SENIORITY generations) is one query storage can run', async () => {
      // A chain of ReplicaSets, each owning the next, with a pod at the bottom: a nested subquery per generation.
      const depth = MAX_OWNER_SENIORITY + 1;
      const chain = Array.from({ length: depth }, (_, i) =>
        obj('replicasets', { cluster: 'c3', namespace: 'deep', name: `rs-${i}`, uid: `uid-deep-${i}`, ...(i > 0 ? { owner: `uid-deep-${i - 1}` } : {}) }));
      await s.write({ upserts: [...chain, obj('pods', { cluster: 'c3', namespace: 'deep', name: 'bottom', uid: 'uid-deep-pod', owner: `uid-deep-${depth - 1}` })], deletes: [] });
      const c3 = { op: 'in' as const, values: ['c3'] };
      expect(await ids(s, { types: PODS, clusters: c3, owner: { uid: 'uid-deep-0', seniority: MAX_OWNER_SENIORITY } })).toEqual(['c3/deep/bottom']);
      expect(await ids(s, { types: PODS, clusters: c3, owner: { name: 'rs-0', seniority: MAX_OWNER_SENIORITY } })).toEqual(['c3/deep/bottom']);
    });
  });

  describe('involved events (inject-events)', () => {
    let h: Harness;
    let s: Storage;
    const event = (cluster: string, name: string, involvedUid: string, created: string, type = 'events'): ReturnType<typeof obj> =>
      obj(type, { cluster, namespace: 'ns-1', name, created, fields: type === 'events' ? { involvedObject: { kind: 'Pod', name: 'p', uid: involvedUid }, reason: name } : { regarding: { kind: 'Pod', uid: involvedUid } } });
    beforeAll(async () => {
      h = await open();
      s = h.storage;
      await s.migrate();
      await s.write({
        upserts: [
          obj('pods', { cluster: 'c1', namespace: 'ns-1', name: 'p', uid: 'uid-p' }),
          obj('pods', { cluster: 'c1', namespace: 'ns-1', name: 'q', uid: 'uid-q' }),
          event('c1', 'p.late', 'uid-p', '2022-01-01T00:02:00Z'),
          event('c1', 'p.early', 'uid-p', '2022-01-01T00:01:00Z'),
          event('c1', 'q.one', 'uid-q', '2022-01-01T00:01:00Z'),
          // Not core/v1 Events, or not this cluster's: never found.
          event('c1', 'p.new-api', 'uid-p', '2022-01-01T00:01:30Z', 'eventsV1'),
          event('c2', 'p.other-cluster', 'uid-p', '2022-01-01T00:01:00Z'),
        ],
        deletes: [],
      });
    });
    afterAll(async () => h.cleanup());

    const reasons = (m: Map<string, string[]>, uid: string): string[] | undefined => m.get(uid)?.map((e) => (JSON.parse(e) as { reason: string }).reason);

    it('finds each object\'s core/v1 Events in its cluster, oldest first', async () => {
      const m = await s.involvedEvents('c1', ['uid-p', 'uid-q', 'uid-none']);
      expect([...m.keys()].sort()).toEqual(['uid-p', 'uid-q']);
      expect(reasons(m, 'uid-p')).toEqual(['p.early', 'p.late']);
      expect(reasons(m, 'uid-q')).toEqual(['q.one']);
      expect(reasons(await s.involvedEvents('c2', ['uid-p']), 'uid-p')).toEqual(['p.other-cluster']);
      expect((await s.involvedEvents('c1', [])).size).toBe(0);
    });

    it('a deleted Event is gone, and owner search on events finds an object\'s Events', async () => {
      await s.write({ upserts: [], deletes: [{ cluster: 'c1', group: '', version: 'v1', resource: 'events', namespace: 'ns-1', name: 'p.late' }] });
      expect(reasons(await s.involvedEvents('c1', ['uid-p']), 'uid-p')).toEqual(['p.early']);
      expect(await ids(s, { types: { kind: 'one', group: '', version: 'v1', resource: 'events' }, clusters: c1, owner: { uid: 'uid-q', seniority: 0 } })).toEqual(['c1/ns-1/q.one']);
    });
  });
}
