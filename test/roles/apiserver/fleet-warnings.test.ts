// Warnings on answers over several clusters: members that keep a resource at another version than the one listed
// (their rows are left out), and members in the answer that are not ready. Checked over HTTP and with real kubectl.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UpsertObject } from '../../../src/storage/types.js';
import { CLUSTER_ANNOTATION } from '../../../src/kube/types.js';
import { coverageWarnings, warningValue } from '../../../src/roles/apiserver/warnings.js';
import { openStorage } from '../../../src/storage/open.js';
import { silentLogger } from '../../../src/lib/log.js';
import { serveStore, startTestApiserver, type ServedStore } from '../../support/apiserver.js';
import { healthyStatus, pod } from '../../support/fixtures.js';
import { Kubectl, oldestKubectl } from '../../support/kubectl.js';

const G = 'gateway.networking.k8s.io';
const P = '/apis/clusterpedia.io/v1beta1/resources';

function route(cluster: string, version: string, name: string): UpsertObject {
  return {
    cluster, group: G, version, resource: 'httproutes', kind: 'HTTPRoute',
    object: {
      apiVersion: `${G}/${version}`, kind: 'HTTPRoute',
      metadata: { name, namespace: 'default', uid: `uid-${cluster}-${name}`, resourceVersion: '7', creationTimestamp: '2024-01-01T00:00:00Z', annotations: { [CLUSTER_ANNOTATION]: cluster } },
      spec: { hostnames: [`${name}.example`] },
    },
  };
}

let served: ServedStore;

beforeAll(async () => {
  // old: an older Gateway API install (v1beta1 only); down: not reachable; new: v1, healthy.
  served = await serveStore(
    [route('old', 'v1beta1', 'a'), route('down', 'v1', 'b'), route('new', 'v1', 'c'), pod('old', 'default', 'p-1'), pod('down', 'default', 'p-2'), pod('new', 'default', 'p-3')],
    { old: true, down: false, new: true },
  );
});

afterAll(() => served?.stop());

async function get(path: string): Promise<{ status: number; body: Record<string, unknown>; warnings: string[] }> {
  const r = await fetch(`${served.api.base}${path}`, { headers: { accept: 'application/json' } });
  const body = JSON.parse(await r.text()) as Record<string, unknown>;
  const w = r.headers.get('warning');
  // fetch joins repeated headers with ", "; each value starts with the 299 code.
  return { status: r.status, body, warnings: w === null ? [] : w.split(/, (?=299 )/) };
}

const names = (body: Record<string, unknown>): string[] => (body.items as { metadata: { name: string } }[]).map((i) => i.metadata.name).sort();

const LEFT_OUT = `299 - "httproutes.${G}: 1 cluster keeps it as ${G}/v1beta1, not ${G}/v1, and is left out of this answer (ask for httproutes.v1beta1.${G}): old"`;
const DOWN = '299 - "down is not ready and the resources obtained may be inaccurate, reason: NotReachable."';

describe('a list over several clusters', () => {
  it('names the members it left out because they keep the resource at another version, and the members not ready', async () => {
    const r = await get(`${P}/apis/${G}/v1/httproutes`);
    expect(r.status).toBe(200);
    expect(names(r.body)).toEqual(['b', 'c']);
    expect(r.warnings).toEqual([LEFT_OUT, DOWN]);
  });

  it('says the same the other way round: the v1 members are left out of a v1beta1 list', async () => {
    const r = await get(`${P}/apis/${G}/v1beta1/httproutes`);
    expect(names(r.body)).toEqual(['a']);
    expect(r.warnings).toEqual([`299 - "httproutes.${G}: 2 clusters keep it as ${G}/v1, not ${G}/v1beta1, and are left out of this answer (ask for httproutes.v1.${G}): down, new"`]);
  });

  it('warns only about the clusters the list reads', async () => {
    expect((await get(`${P}/apis/${G}/v1/httproutes?clusters=new`)).warnings).toEqual([]);
    expect((await get(`${P}/apis/${G}/v1/httproutes?clusters=new,old`)).warnings).toEqual([LEFT_OUT]);
    const notOld = encodeURIComponent('search.clusterpedia.io/clusters notin (old)');
    expect((await get(`${P}/apis/${G}/v1/httproutes?labelSelector=${notOld}`)).warnings).toEqual([DOWN]);
    // Pods are kept at v1 everywhere: only the member that is not ready is named.
    expect((await get(`${P}/api/v1/pods`)).warnings).toEqual([DOWN]);
    // Through one cluster's path the warning is the one reference §1.3 step 9 gives, once.
    expect((await get(`${P}/clusters/down/api/v1/pods`)).warnings).toEqual([DOWN]);
  });

  it('warns a watch the same way', async () => {
    const r = await fetch(`${served.api.base}${P}/apis/${G}/v1/httproutes?watch=true&timeoutSeconds=1`);
    expect(r.status).toBe(200);
    expect(r.headers.get('warning')).toBe(`${LEFT_OUT}, ${DOWN}`);
    await r.text();
  });

  it('names the members not ready in a collection too', async () => {
    const C = '/apis/clusterpedia.io/v1beta1/collectionresources';
    const all = await get(`${C}/any?resources=${G}/httproutes`);
    // A collection reads every version of what it is asked for: nobody is left out.
    expect(names(all.body)).toEqual(['a', 'b', 'c']);
    expect(all.warnings).toEqual([DOWN]);
    expect((await get(`${C}/workloads?clusters=old,new`)).warnings).toEqual([]);
  });

  it('names the members whose first list of the resource is still running: their objects are not all there', async () => {
    const before = (await served.storage.clusterStatuses()).get('new')!;
    const listing = (status: string, initialListPhase: boolean): Record<string, unknown> => ({
      ...before.status,
      syncResources: [{ group: '', resources: [{ name: 'pods', kind: 'Pod', namespaced: true, syncConditions: [{ version: 'v1', status, initialListPhase }] }] }],
    });
    const FIRST = '299 - "pods: 1 cluster is still in its first list of it, and some of its objects are not in this answer yet: new"';
    const until = async (path: string, want: string[]): Promise<string[]> => {
      let w: string[] = [];
      // The catalog reads statuses again within its 2 s TTL.
      for (let i = 0; i < 40 && JSON.stringify(w) !== JSON.stringify(want); i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 100));
        w = (await get(path)).warnings;
      }
      return w;
    };
    try {
      await served.storage.putClusterStatus('new', { ...before, status: listing('Pending', true), updatedAt: new Date().toISOString() });
      expect(await until(`${P}/api/v1/pods`, [FIRST, DOWN])).toEqual([FIRST, DOWN]);
      // Through the member's own path too.
      expect((await get(`${P}/clusters/new/api/v1/pods`)).warnings).toEqual([FIRST]);
      // A relist (initialListPhase while Syncing) keeps the rows it had: no warning.
      await served.storage.putClusterStatus('new', { ...before, status: listing('Syncing', true), updatedAt: new Date().toISOString() });
      expect(await until(`${P}/api/v1/pods`, [DOWN])).toEqual([DOWN]);
    } finally {
      await served.storage.putClusterStatus('new', before);
    }
  });

  it('answers one cluster at a version it does not keep with a 404 that names the version it keeps', async () => {
    const r = await get(`${P}/clusters/old/apis/${G}/v1/httproutes`);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ kind: 'Status', reason: 'NotFound', message: `the server could not find the requested resource: cluster old keeps httproutes.${G} as ${G}/v1beta1` });
    expect((await get(`${P}/clusters/old/apis/${G}/v1beta1/httproutes`)).status).toBe(200);
    expect((await get(`${P}/clusters/old/apis/${G}/v1/httproutes/a`)).status).toBe(404);
  });
});

describe('warning texts', () => {
  it('are quoted strings: quotes and backslashes escaped, control characters dropped', () => {
    expect(warningValue('a "b" c\\d\ne')).toBe('299 - "a \\"b\\" c\\\\de"');
  });

  it('count the members past the tenth, and give the reasons of several members not ready', () => {
    const many = Array.from({ length: 12 }, (_, i) => ({ cluster: `m${i}`, versions: ['v1beta1', 'v1alpha1'] }));
    const [left, down] = coverageWarnings({ group: 'x.io', version: 'v1', resource: 'things' },
      { elsewhere: many, notReady: [{ cluster: 'a', reason: 'NotReachable' }, { cluster: 'b', reason: '' }], firstListing: [], excluding: [] });
    expect(left).toBe('things.x.io: 12 clusters keep it as x.io/v1beta1, not x.io/v1, and are left out of this answer (ask for things.v1beta1.x.io): m0, m1, m2, m3, m4, m5, m6, m7, m8, m9 and 2 more');
    expect(down).toBe('2 clusters are not ready and the resources obtained from them may be inaccurate: a (NotReachable), b');
  });

  it('group the clusters leaving out the same namespaces, and count the namespaces past the tenth', () => {
    const names = Array.from({ length: 13 }, (_, i) => `ns-${i}`);
    const warnings = coverageWarnings({ group: '', version: 'v1', resource: 'pods' }, {
      elsewhere: [], notReady: [], firstListing: [],
      excluding: [{ cluster: 'a', namespaces: ['kube-system'] }, { cluster: 'b', namespaces: names }, { cluster: 'c', namespaces: ['kube-system'] }],
    });
    expect(warnings).toEqual([
      'pods: 2 clusters do not sync namespace kube-system (their spec.excludeNamespaces), and none of their objects there are in this answer: a, c',
      'pods: 1 cluster does not sync namespaces ns-0, ns-1, ns-2, ns-3, ns-4, ns-5, ns-6, ns-7, ns-8, ns-9 and 3 more (its spec.excludeNamespaces), and none of its objects there are in this answer: b',
    ]);
  });
});

describe('kubectl', () => {
  it('prints the warnings on stderr and the rows it got on stdout (the dispatcher and kubectl 1.27)', async () => {
    for (const binary of [undefined, oldestKubectl()]) {
      const k = new Kubectl(served.api.resources, binary);
      try {
        const r = await k.run(['get', `httproutes.v1.${G}`, '-A', '-o', 'name']);
        expect(r.code).toBe(0);
        expect(r.stdout.trim().split('\n').sort()).toEqual([`httproute.${G}/b`, `httproute.${G}/c`]);
        expect(r.stderr).toContain(`Warning: httproutes.${G}: 1 cluster keeps it as ${G}/v1beta1, not ${G}/v1, and is left out of this answer (ask for httproutes.v1beta1.${G}): old`);
        expect(r.stderr).toContain('Warning: down is not ready and the resources obtained may be inaccurate, reason: NotReachable.');
      } finally {
        k.dispose();
      }
    }
  });
});

describe('a namespace some clusters do not sync (spec.excludeNamespaces)', () => {
  it('is answered from the others, with a warning naming those that leave it out; kubectl prints it', async () => {
    const storage = await openStorage({ url: 'sqlite::memory:' }, { logger: silentLogger() });
    try {
      await storage.migrate();
      await storage.write({ upserts: [pod('lean', 'default', 'l-1'), pod('full', 'kube-system', 'f-1'), pod('full', 'default', 'f-2')], deletes: [] });
      // What the synchro writes for a cluster that excludes kube-system: the field selector its pods are synced under.
      const synced = (fieldSelector?: string): Record<string, unknown> => ({
        syncResources: [{ group: '', resources: [{ name: 'pods', kind: 'Pod', namespaced: true, syncConditions: [{ version: 'v1', status: 'Syncing', lastTransitionTime: '2024-01-01T00:00:00Z', ...(fieldSelector ? { fieldSelector } : {}) }] }] }],
      });
      for (const [cluster, selector] of [['lean', 'metadata.namespace!=kube-system,metadata.namespace!=kube-node-lease'], ['full', undefined]] as const) {
        const st = healthyStatus(cluster);
        await storage.putClusterStatus(cluster, { ...st, status: { ...st.status, ...synced(selector) } });
      }
      const api = await startTestApiserver(storage);
      try {
        const warning = (r: Response): string | null => r.headers.get('warning');
        const inSystem = await fetch(`${api.base}${P}/api/v1/namespaces/kube-system/pods`, { headers: { accept: 'application/json' } });
        expect((JSON.parse(await inSystem.text()) as { items: unknown[] }).items).toHaveLength(1);
        expect(warning(inSystem)).toBe('299 - "pods: 1 cluster does not sync namespace kube-system (its spec.excludeNamespaces), and none of its objects there are in this answer: lean"');
        // Another namespace, or every namespace: nothing to say.
        expect(warning(await fetch(`${api.base}${P}/api/v1/namespaces/default/pods`))).toBeNull();
        expect(warning(await fetch(`${api.base}${P}/api/v1/pods`))).toBeNull();
        // One cluster's path says it too.
        expect(warning(await fetch(`${api.base}${P}/clusters/lean/api/v1/namespaces/kube-node-lease/pods`))).toContain('does not sync namespace kube-node-lease');
        // Namespaces named by a search say it as a path's does; one excluded by it (notin) has nothing to say.
        const searched = await fetch(`${api.base}${P}/api/v1/pods?namespaces=default,kube-system,kube-node-lease`);
        expect(warning(searched)).toBe('299 - "pods: 1 cluster does not sync namespaces kube-system, kube-node-lease (its spec.excludeNamespaces), and none of its objects there are in this answer: lean"');
        expect(warning(await fetch(`${api.base}${P}/api/v1/pods?labelSelector=${encodeURIComponent('search.clusterpedia.io/namespaces=kube-system')}`))).toContain('does not sync namespace kube-system');
        expect(warning(await fetch(`${api.base}${P}/api/v1/pods?labelSelector=${encodeURIComponent('search.clusterpedia.io/namespaces notin (kube-system)')}`))).toBeNull();
        // A collection of the namespace too, unless its clusters or its types leave out those excluding it.
        const C = `${api.base}/apis/clusterpedia.io/v1beta1/collectionresources`;
        const collection = await fetch(`${C}/kuberesources?namespaces=kube-system`, { headers: { accept: 'application/json' } });
        expect((JSON.parse(await collection.text()) as { items: unknown[] }).items).toHaveLength(1);
        expect(warning(collection)).toBe('299 - "collectionresources kuberesources: 1 cluster does not sync namespace kube-system (its spec.excludeNamespaces), and none of its objects there are in this answer: lean"');
        expect(warning(await fetch(`${C}/any?resources=/pods&namespaces=kube-system`))).toContain('collectionresources any: 1 cluster does not sync namespace kube-system');
        expect(warning(await fetch(`${C}/kuberesources?namespaces=kube-system&clusters=full`))).toBeNull();
        expect(warning(await fetch(`${C}/kuberesources?namespaces=default`))).toBeNull();
        expect(warning(await fetch(`${C}/any?resources=apps/deployments&namespaces=kube-system`))).toBeNull();
        // workloads: Deployments, StatefulSets, DaemonSets, none of which this cluster's status says it excludes from.
        expect(warning(await fetch(`${C}/workloads?namespaces=kube-system`))).toBeNull();
        const k = new Kubectl(api.resources);
        try {
          const r = await k.run(['get', 'pods', '-n', 'kube-system', '-o', 'name']);
          expect(r.code).toBe(0);
          expect(r.stdout.trim()).toBe('pod/f-1');
          expect(r.stderr).toContain('Warning: pods: 1 cluster does not sync namespace kube-system (its spec.excludeNamespaces), and none of its objects there are in this answer: lean');
        } finally {
          k.dispose();
        }
      } finally {
        await api.stop();
      }
    } finally {
      await storage.close();
    }
  });
});
